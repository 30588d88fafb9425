// Deck markdown (docs/deck-markdown.md): a human- and agent-friendly form of the JSON import body.
// The parser only maps the document onto the JSON shape; field rules stay with the JSON schema so
// both formats are validated and normalised by the same code.
import { isDeepStrictEqual } from 'node:util';
import { Document, LineCounter, isMap, isScalar, parse, parseDocument, visit, type Node } from 'yaml';
import { AppError } from '../../errors.ts';
import { normaliseCard } from '../cards/card-content.ts';
import {
  CardExtrasInputSchema,
  type CardDto, type CardExtrasInput, type CardInput, type DeckDetail, type DeckMetaInput, type ImportBody,
} from '../decks/decks.schemas.ts';

export const DECK_MARKDOWN_VERSION = 1;

const FRONT_MATTER_KEYS = ['version', 'title', 'lang', 'visibility', 'description', 'tags', 'thumbnail'];
const CARD_META_KEYS = ['front', 'back', 'oneSided', 'frontMedia', 'backMedia', 'extras'];
const EXTRAS_KEYS = Object.keys(CardExtrasInputSchema.properties);

// Structure is recognised only at column 0 and outside fenced code; the exporter checks every side
// against these same patterns, which is what keeps export -> import exact.
const BLANK = /^[ \t]*$/;
const SEPARATOR = /^---[ \t]*$/;
const SECTION = /^##[ \t]+(front|back)[ \t]*$/i;
const META_OPEN = /^<!--[ \t]*card[ \t]*$/i;
const META_CLOSE = /^-->[ \t]*$/;
const TITLE = /^#(?:[ \t]+(.*))?$/s;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/s;
const FENCE_CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

// Never fold lines, and write double-quoted strings as JSON: one line, escapes only where needed.
const YAML_OUT = { lineWidth: 0, blockQuote: 'literal', flowCollectionPadding: false, doubleQuotedAsJSON: true } as const;

interface Fence { char: string; length: number; line: number }
interface Entry { value: unknown; line: number }
interface Section { line: number; lines: string[] }
interface CardDraft { line: number; metaLine?: number; meta?: Map<string, Entry>; front?: Section; back?: Section }

function fail(line: number, message: string): never {
  throw new AppError('PARSE_FAILED', `line ${line}: ${message}`, { line });
}

function fenceOpening(line: string, lineNo: number): Fence | null {
  const m = FENCE_OPEN.exec(line);
  if (!m) return null;
  // CommonMark: a backtick fence's info string cannot hold a backtick (that is inline code).
  if (m[1][0] === '`' && m[2].includes('`')) return null;
  return { char: m[1][0], length: m[1].length, line: lineNo };
}

function closesFence(fence: Fence, line: string): boolean {
  const m = FENCE_CLOSE.exec(line);
  return m !== null && m[1][0] === fence.char && m[1].length >= fence.length;
}

function isStructure(line: string): boolean {
  return SEPARATOR.test(line) || META_OPEN.test(line) || SECTION.test(line);
}

// ---------------------------------------------------------------------------------------------
// YAML blocks (front matter, card meta)

// Performance (docs/performance.md): the YAML library takes 35 to 90 µs a block, and with a meta
// block per card that was most of a markdown import. The exporter's usual output, "key: scalar"
// lines and one level of "  key: scalar" under a key, is read here without it. Any line outside
// this subset (comments, block scalars, anchors, URLs, odd spacing, a repeated key...) makes this
// return null and the whole block goes to the library, so results and errors stay the library's.
const FAST_KEY = /^([A-Za-z][A-Za-z0-9]*):(?: (.*))?$/;
const FAST_NESTED = /^  ([A-Za-z][A-Za-z0-9]*): (.+)$/;
const FAST_PLAIN = /^[A-Za-z](?:[A-Za-z0-9 .,;!?'()/_+-]*[A-Za-z0-9.!?')])?$/;
const FAST_FLOW_ITEM = /^[A-Za-z](?:[A-Za-z0-9 ._/+-]*[A-Za-z0-9])?$/;
const FAST_QUOTED = /^"(?:[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff\ud800-\udfff]|\\["\\/bfnrt]|\\u(?![dD][89abAB])[0-9a-fA-F]{4})*"$/;
const FAST_INT = /^(?:0|[1-9][0-9]{0,14})$/;
const NOT_A_STRING = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
const NO_VALUE = Symbol('no value');

function fastScalar(text: string, flow: boolean): unknown {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  if (NOT_A_STRING.test(text)) return NO_VALUE;
  if (FAST_INT.test(text)) return Number(text);
  if ((flow ? FAST_FLOW_ITEM : FAST_PLAIN).test(text)) return text;
  if (!flow && FAST_QUOTED.test(text)) return JSON.parse(text) as string;
  return NO_VALUE;
}

function fastValue(text: string): unknown {
  if (text.startsWith('[') && text.endsWith(']')) {
    const inner = text.slice(1, -1);
    if (inner === '') return [];
    const items = inner.split(', ').map((item) => fastScalar(item, true));
    return items.includes(NO_VALUE) ? NO_VALUE : items;
  }
  return fastScalar(text, false);
}

function readSimpleMapping(lines: string[], firstLine: number): Map<string, Entry> | null {
  const out = new Map<string, Entry>();
  for (let i = 0; i < lines.length; i++) {
    const top = FAST_KEY.exec(lines[i]);
    if (!top || out.has(top[1])) return null;
    if (top[2] !== undefined) {
      const value = fastValue(top[2]);
      if (value === NO_VALUE) return null;
      out.set(top[1], { value, line: firstLine + i });
      continue;
    }
    const nested: Record<string, unknown> = {};
    const line = firstLine + i;
    let any = false;
    for (let m = FAST_NESTED.exec(lines[i + 1] ?? ''); m !== null; m = FAST_NESTED.exec(lines[i + 1] ?? '')) {
      if (Object.hasOwn(nested, m[1])) return null;
      const value = fastValue(m[2]);
      if (value === NO_VALUE) return null;
      nested[m[1]] = value;
      any = true;
      i++;
    }
    if (!any) return null;
    out.set(top[1], { value: nested, line });
  }
  return out;
}

function readYamlMapping(lines: string[], firstLine: number, what: string): Map<string, Entry> {
  const simple = readSimpleMapping(lines, firstLine);
  if (simple !== null) return simple;
  // Each line keeps its line break: a "|+" block scalar at the end keeps its trailing newlines.
  const source = lines.map((line) => `${line}\n`).join('');
  const counter = new LineCounter();
  const doc = parseDocument(source, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  const lastLine = firstLine + Math.max(lines.length - 1, 0);
  const lineAt = (offset: number) => Math.min(firstLine + counter.linePos(offset).line - 1, lastLine);
  const error = doc.errors[0];
  if (error) fail(lineAt(error.pos[0]), `invalid YAML in the ${what}: ${error.message}`);
  const out = new Map<string, Entry>();
  if (doc.contents === null) return out;
  if (!isMap(doc.contents)) fail(firstLine, `the ${what} must be a YAML mapping of "key: value" lines`);
  for (const pair of doc.contents.items) {
    const keyNode = pair.key as Node | null;
    const line = keyNode?.range ? lineAt(keyNode.range[0]) : firstLine;
    const key = isScalar(keyNode) ? String(keyNode.value) : String(keyNode);
    let value: unknown;
    try {
      value = (pair.value as Node | null)?.toJS(doc, { maxAliasCount: 100 }) ?? null;
    } catch (err) {
      fail(line, `invalid YAML value for ${key}: ${(err as Error).message}`);
    }
    const problem = jsonProblem(value);
    if (problem) fail(line, `${key}: ${problem}`);
    out.set(key, { value, line });
  }
  return out;
}

// The body becomes JSON-shaped input; YAML-only values (.nan, .inf) have no JSON equivalent.
// An alias inside the value it names (`x: &a [*a]`) makes a cycle, which JSON cannot hold.
function jsonProblem(value: unknown, ancestors: readonly object[] = []): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'numbers must be finite';
  if (Array.isArray(value) || isPlainObject(value)) {
    if (ancestors.includes(value)) return 'a YAML alias must not refer to a value that contains it';
    const inner = [...ancestors, value];
    return (Array.isArray(value) ? value : Object.values(value)).map((v) => jsonProblem(v, inner)).find((p) => p !== null) ?? null;
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  return 'only strings, numbers, booleans, null, lists and mappings are allowed';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    && Object.getPrototypeOf(value) === Object.prototype;
}

const QUOTE_HINT = ' (put the value in quotes if it is text)';

function optionalString(entries: Map<string, Entry>, key: string): string | null | undefined {
  const entry = entries.get(key);
  if (entry === undefined || entry.value === null) return entry?.value as null | undefined;
  if (typeof entry.value !== 'string') fail(entry.line, `${key} must be a string${QUOTE_HINT}`);
  return entry.value;
}

function checkKeys(entries: Map<string, Entry>, known: string[], what: string, hint: (key: string) => string): void {
  for (const [key, { line }] of entries) {
    if (!known.includes(key)) fail(line, `unknown ${what} key "${key}"${hint(key)}; allowed keys: ${known.join(', ')}`);
  }
}

function caseHint(known: string[]) {
  return (key: string) => {
    const match = known.find((k) => k.toLowerCase() === key.toLowerCase());
    return match ? ` (keys are case-sensitive: did you mean "${match}"?)` : '';
  };
}

// ---------------------------------------------------------------------------------------------
// Parsing

export function parseDeckMarkdown(text: string): ImportBody {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  let i = 0;
  while (i < lines.length && BLANK.test(lines[i])) i++;
  if (i === lines.length) fail(1, 'the document is empty; it must start with front matter (a line of three hyphens)');
  if (!SEPARATOR.test(lines[i])) {
    const hint = /^\s*(```|~~~)/.test(lines[i]) ? '; do not wrap the whole document in a code fence' : '';
    fail(i + 1, `the document must start with front matter (a line of three hyphens)${hint}`);
  }
  const open = i;
  do i++; while (i < lines.length && !SEPARATOR.test(lines[i]));
  if (i === lines.length) fail(open + 1, 'the front matter is never closed by a line of three hyphens');
  const deck = readFrontMatter(readYamlMapping(lines.slice(open + 1, i), open + 2, 'front matter'));

  i++;
  while (i < lines.length && BLANK.test(lines[i])) i++;
  const heading = i < lines.length ? TITLE.exec(lines[i]) : null;
  if (heading) {
    const title = (heading[1] ?? '').trim();
    if (deck.title !== undefined && deck.title !== title) {
      fail(i + 1, 'the title is given both in front matter (title:) and as a # heading; keep one');
    }
    deck.title = title;
    i++;
  } else if (deck.title === undefined) {
    fail(Math.min(i + 1, lines.length), 'missing deck title: after the front matter write a heading line "# Deck title"');
  }

  const cards = readCards(lines, i);
  let lastText = lines.length;
  while (lastText > 1 && BLANK.test(lines[lastText - 1] as string)) lastText--;
  if (cards.length === 0) fail(lastText, 'the document has no cards; write each card as "## Front" and "## Back" sections separated by lines of three hyphens');
  const { title, ...rest } = deck;
  return { deck: { title, ...rest } as DeckMetaInput, cards };
}

function readFrontMatter(entries: Map<string, Entry>): Partial<DeckMetaInput> {
  checkKeys(entries, FRONT_MATTER_KEYS, 'front-matter', (key) => {
    if (CARD_META_KEYS.includes(key) || EXTRAS_KEYS.includes(key)) return ' (card fields go in a card meta block "<!-- card ... -->")';
    return caseHint(FRONT_MATTER_KEYS)(key);
  });
  const version = entries.get('version');
  if (version && version.value !== null && version.value !== DECK_MARKDOWN_VERSION) {
    fail(version.line, `unsupported version ${JSON.stringify(version.value)}: this service reads deck markdown version ${DECK_MARKDOWN_VERSION}`);
  }
  const deck: Record<string, unknown> = {};
  // Absent (or empty) keys stay absent so the service applies and reports its own defaults.
  for (const key of ['title', 'lang', 'visibility'] as const) {
    const value = optionalString(entries, key);
    if (value != null) deck[key] = value;
  }
  for (const key of ['description', 'thumbnail'] as const) {
    const value = optionalString(entries, key);
    if (value !== undefined) deck[key] = value;
  }
  const tags = entries.get('tags');
  if (tags && tags.value !== null) {
    if (!Array.isArray(tags.value) || !tags.value.every((t) => typeof t === 'string')) {
      fail(tags.line, `tags must be a list of strings, e.g. tags: [biology, cells]${QUOTE_HINT}`);
    }
    deck.tags = tags.value;
  }
  return deck as Partial<DeckMetaInput>;
}

function readCards(lines: string[], from: number): CardInput[] {
  const cards: CardInput[] = [];
  let card: CardDraft | null = null;
  let section: Section | null = null;
  let fence: Fence | null = null;
  let meta: { line: number; lines: string[] } | null = null;
  const finish = () => {
    if (card) cards.push(buildCard(card));
    card = null;
    section = null;
  };
  for (let n = from; n < lines.length; n++) {
    const line = lines[n];
    const lineNo = n + 1;
    if (meta) {
      if (META_CLOSE.test(line)) {
        card!.meta = readYamlMapping(meta.lines, meta.line + 1, 'card meta block');
        meta = null;
      } else meta.lines.push(line);
    } else if (fence) {
      section!.lines.push(line);
      if (closesFence(fence, line)) fence = null;
    } else if (SEPARATOR.test(line)) {
      finish();
    } else if (META_OPEN.test(line)) {
      card ??= { line: lineNo };
      if (card.metaLine !== undefined) fail(lineNo, `second card meta block in the card starting at line ${card.line}; a card has at most one`);
      card.metaLine = lineNo;
      meta = { line: lineNo, lines: [] };
      section = null;
    } else if (SECTION.test(line)) {
      card ??= { line: lineNo };
      const side = SECTION.exec(line)![1].toLowerCase() as 'front' | 'back';
      const name = side === 'front' ? 'Front' : 'Back';
      if (card[side]) fail(lineNo, `duplicate "## ${name}" in the card starting at line ${card.line}; separate cards with a line of three hyphens`);
      section = card[side] = { line: lineNo, lines: [] };
    } else if (section) {
      section.lines.push(line);
      fence = fenceOpening(line, lineNo);
    } else if (!BLANK.test(line)) {
      if (card) fail(lineNo, 'text outside a section: card text goes under "## Front" or "## Back"');
      if (cards.length === 0) fail(lineNo, 'text before the first card: a card starts with "## Front", "## Back" or a card meta block (the deck description goes in front matter as description:)');
      fail(lineNo, 'text after a card separator (---): the next card must start with "## Front", "## Back" or a card meta block');
    }
  }
  if (meta) fail(meta.line, 'the card meta block is never closed by a line "-->"');
  if (fence) fail((fence as Fence).line, 'the code fence opened here is never closed');
  finish();
  return cards;
}

function sectionText(section: Section): string {
  const lines = section.lines;
  let start = 0;
  let end = lines.length;
  while (start < end && BLANK.test(lines[start])) start++;
  while (end > start && BLANK.test(lines[end - 1])) end--;
  return lines.slice(start, end).join('\n');
}

function buildCard(draft: CardDraft): CardInput {
  const meta = draft.meta ?? new Map<string, Entry>();
  checkKeys(meta, CARD_META_KEYS, 'card meta', (key) => (EXTRAS_KEYS.includes(key)
    ? ` (extras fields go under "extras:", e.g. "extras:\\n  ${key}: ...")`
    : caseHint(CARD_META_KEYS)(key)));
  const side = (key: 'front' | 'back'): string | null => {
    const section = draft[key];
    const fromMeta = optionalString(meta, key);
    if (section && fromMeta !== undefined) {
      fail(section.line, `the ${key} is given twice: as a section and as "${key}:" in the card meta block`);
    }
    return section ? sectionText(section) : fromMeta ?? null;
  };
  const card: CardInput = { front: side('front'), back: side('back') };
  if (card.front === null && card.back === null) {
    fail(draft.line, 'the card has neither a "## Front" nor a "## Back" section');
  }
  const oneSided = meta.get('oneSided');
  if (oneSided && oneSided.value !== null) {
    if (typeof oneSided.value !== 'boolean') fail(oneSided.line, 'oneSided must be true or false');
    card.oneSided = oneSided.value;
  }
  for (const key of ['frontMedia', 'backMedia'] as const) {
    const entry = meta.get(key);
    if (!entry) continue;
    if (entry.value !== null && !isPlainObject(entry.value)) fail(entry.line, `${key} must be a mapping with imageUrl and/or imageAlt, or null`);
    card[key] = entry.value as CardInput[typeof key];
  }
  const extras = meta.get('extras');
  if (extras && extras.value !== null) {
    if (!isPlainObject(extras.value)) fail(extras.line, 'extras must be a mapping, e.g. "extras:\\n  cardType: formula"');
    card.extras = extras.value as CardExtrasInput;
  }
  return card;
}

// ---------------------------------------------------------------------------------------------
// Export

/** Whether the parser would read `text` back unchanged from a `## Front` / `## Back` section. */
function fitsSection(text: string): boolean {
  if (text === '') return true;
  if (text.includes('\r')) return false;
  const lines = text.split('\n');
  if (BLANK.test(lines[0]) || BLANK.test(lines[lines.length - 1])) return false;
  let fence: Fence | null = null;
  for (const line of lines) {
    if (fence) {
      if (closesFence(fence, line)) fence = null;
    } else if (isStructure(line)) {
      return false;
    } else {
      fence = fenceOpening(line, 0);
    }
  }
  return fence === null;
}

function fitsHeading(title: string): boolean {
  return title !== '' && !/[\r\n]/.test(title) && title.trim() === title;
}

// The yaml package's block scalars lose or reject some whitespace-only lines, so every multi-line
// string is checked on its own and written double-quoted (escapes, always exact) when needed.
function toYaml(input: Record<string, unknown>, quoteAll = false): string {
  // The JSON form is what must read back: undefined properties are simply not written.
  const value = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
  const doc = new Document(value);
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value !== 'string' || !/[\r\n]/.test(node.value)) return;
      if (quoteAll || !sameAfterYaml(new Document({ k: node.value }).toString(YAML_OUT), { k: node.value })) {
        node.type = 'QUOTE_DOUBLE';
      }
    },
    // Short lists of one-line scalars read best inline: tags: [biology, cells].
    Seq(_, node) {
      if (node.items.every((item) => isScalar(item) && !(typeof item.value === 'string' && /[\r\n]/.test(item.value)))) {
        node.flow = true;
      }
    },
  });
  const text = doc.toString(YAML_OUT);
  if (sameAfterYaml(text, value)) return text;
  if (quoteAll) throw new Error('deck markdown export: YAML output does not read back as written');
  return toYaml(value, true);
}

function sameAfterYaml(text: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(parse(text), value);
  } catch {
    return false;
  }
}

export function exportDeckMarkdown(deck: DeckDetail): string {
  const front: Record<string, unknown> = { version: DECK_MARKDOWN_VERSION };
  const heading = fitsHeading(deck.title);
  if (!heading) front.title = deck.title;
  if (deck.lang != null) front.lang = deck.lang;
  front.visibility = deck.visibility;
  // Null is written as absence: the import service turns an absent description/thumbnail into null.
  if (deck.description != null) front.description = deck.description;
  if (deck.tags !== undefined && deck.tags.length > 0) front.tags = deck.tags;
  if (deck.thumbnail != null) front.thumbnail = deck.thumbnail;
  const head = `---\n${toYaml(front)}---\n${heading ? `# ${deck.title}\n` : ''}`;
  return `${head}\n${deck.cards.map(exportCard).join('\n\n---\n\n')}\n`;
}

function exportCard(card: CardDto): string {
  const meta: Record<string, unknown> = {};
  if (card.oneSided) meta.oneSided = true;
  if (card.frontMedia != null) meta.frontMedia = card.frontMedia;
  if (card.backMedia != null) meta.backMedia = card.backMedia;
  const extras = exportedExtras(card);
  if (extras) meta.extras = extras;
  const sections: string[] = [];
  for (const [key, name] of [['front', 'Front'], ['back', 'Back']] as const) {
    const text = card[key];
    if (text === null) continue;
    if (fitsSection(text)) sections.push(text === '' ? `## ${name}` : `## ${name}\n${text}`);
    else meta[key] = text;
  }
  const block = Object.keys(meta).length > 0 ? `<!-- card\n${toYaml(meta)}-->` : null;
  if (sections.length === 0) return block ?? '';
  const body = sections.join('\n\n');
  return block ? `${block}\n${body}` : body;
}

/** The card's extras minus frontType/backType where they equal the default import would resolve. */
function exportedExtras(card: CardDto): Record<string, unknown> | null {
  if (!card.extras) return null;
  const rest: Record<string, unknown> = { ...card.extras };
  delete rest.frontType;
  delete rest.backType;
  const defaults = normaliseCard({ front: 'x', extras: rest as CardExtrasInput }, 'extras').content.extras;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(card.extras)) {
    if (key === 'frontType' && value === defaults.frontType) continue;
    if (key === 'backType' && value === defaults.backType) continue;
    out[key] = value;
  }
  return Object.keys(out).length > 0 ? out : null;
}
