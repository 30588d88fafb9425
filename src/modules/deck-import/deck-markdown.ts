// Deck markdown (docs/deck-markdown.md): a human- and agent-friendly form of the JSON import body.
// The parser only maps the document onto the JSON shape; field rules stay with the JSON schema so
// both formats are validated and normalised by the same code.
import { AppError } from '../../errors.ts';
import { MAX_CARDS_PER_DECK, type CardInput, type DeckMetaInput, type ImportBody } from '../decks/decks.schemas.ts';
import { BLANK, CARD_META_KEYS, DECK_MARKDOWN_VERSION, EXTRAS_KEYS, FRONT_MATTER_KEYS, META_CLOSE, META_OPEN, SECTION, SEPARATOR, TITLE, closesFence, fail, fenceOpening, type CardDraft, type Entry, type Fence, type Section } from './deck-markdown-syntax.ts';
import { QUOTE_HINT, caseHint, checkKeys, isPlainObject, optionalString, readYamlMapping, yamlBudget, type YamlBudget } from './deck-markdown-yaml.ts';

export { DECK_MARKDOWN_VERSION } from './deck-markdown-syntax.ts';
export { exportDeckMarkdown, type ExportableDeck } from './deck-markdown-export.ts';

// ---------------------------------------------------------------------------------------------
// Parsing

/**
 * The document's lines, read one at a time: the parser stops at its first error or at the 251st
 * card without splitting (or reading) the rest of a large document.
 */
class LineReader {
  readonly #text: string;
  #at = 0;
  #nextLf = -2;
  #nextCr = -2;
  #held: string | undefined;
  /** 1-based number of the line last returned */
  number = 0;
  /** Number of the last line holding more than blanks */
  lastText = 1;

  constructor(text: string) {
    this.#text = text.startsWith('\uFEFF') ? text.slice(1) : text;
  }

  next(): string | undefined {
    if (this.#held !== undefined) {
      const line = this.#held;
      this.#held = undefined;
      this.number++;
      return line;
    }
    const text = this.#text;
    if (this.#at > text.length) return undefined;
    // Each search runs ahead once and is reused until passed, so reading all lines is linear.
    if (this.#nextLf !== -1 && this.#nextLf < this.#at) this.#nextLf = text.indexOf('\n', this.#at);
    if (this.#nextCr !== -1 && this.#nextCr < this.#at) this.#nextCr = text.indexOf('\r', this.#at);
    const lf = this.#nextLf;
    const cr = this.#nextCr;
    const end = lf === -1 ? (cr === -1 ? text.length : cr) : cr === -1 ? lf : Math.min(lf, cr);
    const line = text.slice(this.#at, end);
    this.#at = end + (text[end] === '\r' && text[end + 1] === '\n' ? 2 : 1);
    this.number++;
    if (!BLANK.test(line)) this.lastText = this.number;
    return line;
  }

  /** Gives the line just read back, to be read again by next(). */
  unread(line: string): void {
    this.#held = line;
    this.number--;
  }
}

export function parseDeckMarkdown(text: string): ImportBody {
  const reader = new LineReader(text);
  const budget = yamlBudget();
  let line = reader.next();
  while (line !== undefined && BLANK.test(line)) line = reader.next();
  if (line === undefined) fail(1, 'the document is empty; it must start with front matter (a line of three hyphens)');
  if (!SEPARATOR.test(line)) {
    const hint = /^\s*(?:```|~~~)/.test(line) ? '; do not wrap the whole document in a code fence' : '';
    fail(reader.number, `the document must start with front matter (a line of three hyphens)${hint}`);
  }
  const open = reader.number;
  const frontMatter: string[] = [];
  for (line = reader.next(); line !== undefined && !SEPARATOR.test(line); line = reader.next()) frontMatter.push(line);
  if (line === undefined) fail(open, 'the front matter is never closed by a line of three hyphens');
  const deck = readFrontMatter(readYamlMapping(frontMatter, open + 1, 'front matter', budget));

  line = reader.next();
  while (line !== undefined && BLANK.test(line)) line = reader.next();
  const heading = line !== undefined ? TITLE.exec(line) : null;
  if (heading) {
    const title = (heading.at(1) ?? '').trim();
    if (deck.title !== undefined && deck.title !== title) {
      fail(reader.number, 'the title is given both in front matter (title:) and as a # heading; keep one');
    }
    deck.title = title;
  } else if (deck.title === undefined) {
    fail(reader.number, 'missing deck title: after the front matter write a heading line "# Deck title"');
  } else if (line !== undefined) {
    reader.unread(line);
  }

  const cards = readCards(reader, budget);
  if (cards.length === 0) fail(reader.lastText, 'the document has no cards; write each card as "## Front" and "## Back" sections separated by lines of three hyphens');
  const { title, ...rest } = deck;
  return { deck: { title, ...rest }, cards };
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
  return deck;
}

function readCards(reader: LineReader, budget: YamlBudget): CardInput[] {
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
  const start = (lineNo: number): CardDraft => {
    if (cards.length === MAX_CARDS_PER_DECK) {
      throw new AppError('TOO_MANY_CARDS', `line ${lineNo}: card ${MAX_CARDS_PER_DECK + 1} starts here; a deck holds at most ${MAX_CARDS_PER_DECK} cards`, { field: 'cards', line: lineNo });
    }
    return { line: lineNo };
  };
  for (let line = reader.next(); line !== undefined; line = reader.next()) {
    const lineNo = reader.number;
    if (meta) {
      if (META_CLOSE.test(line)) {
        if (card) card.meta = readYamlMapping(meta.lines, meta.line + 1, 'card meta block', budget);
        meta = null;
      } else meta.lines.push(line);
    } else if (fence) {
      section?.lines.push(line);
      if (closesFence(fence, line)) fence = null;
    } else if (SEPARATOR.test(line)) {
      finish();
    } else if (META_OPEN.test(line)) {
      card ??= start(lineNo);
      if (card.metaLine !== undefined) fail(lineNo, `second card meta block in the card starting at line ${card.line}; a card has at most one`);
      card.metaLine = lineNo;
      meta = { line: lineNo, lines: [] };
      section = null;
    } else if (SECTION.test(line)) {
      card ??= start(lineNo);
      const side = (SECTION.exec(line)?.[1] ?? '').toLowerCase() === 'back' ? 'back' : 'front';
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
  if (fence) fail((fence).line, 'the code fence opened here is never closed');
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
    card[key] = entry.value;
  }
  const extras = meta.get('extras');
  if (extras && extras.value !== null) {
    if (!isPlainObject(extras.value)) fail(extras.line, 'extras must be a mapping, e.g. "extras:\\n  cardType: formula"');
    card.extras = extras.value;
  }
  return card;
}
