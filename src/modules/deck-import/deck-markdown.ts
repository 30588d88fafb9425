// Deck markdown (docs/deck-markdown.md): a human- and agent-friendly form of the JSON import body.
// The parser only maps the document onto the JSON shape; field rules stay with the JSON schema so
// both formats are validated and normalised by the same code.
import type { CardExtrasInput, CardInput, DeckMetaInput, ImportBody } from '../decks/decks.schemas.ts';
import { BLANK, CARD_META_KEYS, DECK_MARKDOWN_VERSION, EXTRAS_KEYS, FRONT_MATTER_KEYS, META_CLOSE, META_OPEN, SECTION, SEPARATOR, TITLE, closesFence, fail, fenceOpening, type CardDraft, type Entry, type Fence, type Section } from './deck-markdown-syntax.ts';
import { QUOTE_HINT, caseHint, checkKeys, isPlainObject, optionalString, readYamlMapping } from './deck-markdown-yaml.ts';

export { DECK_MARKDOWN_VERSION } from './deck-markdown-syntax.ts';
export { exportDeckMarkdown } from './deck-markdown-export.ts';

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
