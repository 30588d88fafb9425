import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Value } from 'typebox/value';
import { AppError } from '../../../src/errors.ts';
import { normaliseCard, type CardContent } from '../../../src/modules/cards/card-content.ts';
import { exportDeckMarkdown, parseDeckMarkdown, type ExportableDeck } from '../../../src/modules/deck-import/deck-markdown.ts';
import {
  CARD_DIFFICULTIES, CARD_DIRECTIONS, CARD_TYPES, CONTENT_TYPES, ImportBodySchema, RETIRED_CARD_TYPES, TEMPLATES, VISIBILITIES,
  type DeckDetail, type DeckMetaInput,
} from '../../../src/modules/decks/decks.schemas.ts';

const CANONICAL = `---
version: 1
lang: en
visibility: private
description: Optional, YAML (block scalars for multi-line)
tags: [biology, cells]
thumbnail: https://example.com/t.png
---
# Deck title

## Front
What is the powerhouse of the cell?

## Back
The **mitochondrion**.

---

## Front
What does ATP stand for?

## Back
Adenosine triphosphate.
`;

const doc = (body: string, frontMatter = 'version: 1\nlang: en') => `---\n${frontMatter}\n---\n${body}`;

function assertParseFailed(text: string, line: number, messagePart?: RegExp): void {
  assert.throws(() => parseDeckMarkdown(text), (err: unknown) => {
    assert.ok(err instanceof AppError, `expected AppError, got ${String(err)}`);
    assert.equal(err.code, 'PARSE_FAILED');
    assert.deepEqual(err.details, { line });
    assert.match(err.message, new RegExp(`^line ${line}: `));
    if (messagePart) assert.match(err.message, messagePart);
    return true;
  });
}

// --- parsing ------------------------------------------------------------------------------------

test('should parse the canonical example into the JSON import body', () => {
  const body = parseDeckMarkdown(CANONICAL);
  assert.deepEqual(body, {
    deck: {
      title: 'Deck title', lang: 'en', visibility: 'private',
      description: 'Optional, YAML (block scalars for multi-line)',
      tags: ['biology', 'cells'], thumbnail: 'https://example.com/t.png',
    },
    cards: [
      { front: 'What is the powerhouse of the cell?', back: 'The **mitochondrion**.' },
      { front: 'What does ATP stand for?', back: 'Adenosine triphosphate.' },
    ],
  });
  assert.ok(Value.Check(ImportBodySchema, body));
});

test('should parse the full example of the format reference into a valid import body', () => {
  const reference = readFileSync(new URL('../../../docs/deck-markdown.md', import.meta.url), 'utf8');
  const example = /^## Full example\n\n````markdown\n([\s\S]*?)^````$/m.exec(reference);
  assert.ok(example, 'docs/deck-markdown.md has a full example');
  const body = parseDeckMarkdown(example[1]);
  assert.ok(Value.Check(ImportBodySchema, body));
  const warnings = body.cards.flatMap((card, i) => normaliseCard(card, `cards[${i}]`, i).warnings.map((w) => w.code));
  assert.deepEqual(warnings, ['TEMPLATE_DEPRECATED', 'FRONT_SECTION_MISSING']);
});

test('should leave lang and the other deck keys absent when the front matter omits them', () => {
  const body = parseDeckMarkdown('---\nversion: 1\n---\n# T\n\n## Front\nq\n## Back\na\n');
  assert.deepEqual(body.deck, { title: 'T' });
});

test('should treat a missing version as version 1 and empty keys as absent', () => {
  const body = parseDeckMarkdown(doc('# T\n## Front\nq', 'lang:\ntags:\ndescription:'));
  assert.deepEqual(body.deck, { title: 'T', description: null });
});

test('should give front null when a card has no Front section', () => {
  const body = parseDeckMarkdown(doc('# T\n\n## Back\nonly the back\n'));
  assert.deepEqual(body.cards, [{ front: null, back: 'only the back' }]);
  const { warnings } = normaliseCard(body.cards[0], 'cards[0]', 0);
  assert.deepEqual(warnings.map((w) => w.code), ['FRONT_SECTION_MISSING']);
});

test('should read an empty section as an empty string and trim only blank lines around a section', () => {
  const body = parseDeckMarkdown(doc('# T\n## Front\n\n## Back\n\n\n  indented\ntrailing  \n\n'));
  assert.deepEqual(body.cards, [{ front: '', back: '  indented\ntrailing  ' }]);
});

test('should keep headings and separators inside fenced code as card text', () => {
  const body = parseDeckMarkdown(doc('# T\n## Front\n~~~md\n---\n## Back\n<!-- card\n~~~\n## Back\n````\n```\n# x\n````'));
  assert.deepEqual(body.cards, [{ front: '~~~md\n---\n## Back\n<!-- card\n~~~', back: '````\n```\n# x\n````' }]);
});

test('should read card fields from the card meta block', () => {
  const body = parseDeckMarkdown(doc([
    '# T', '', '<!-- card', 'oneSided: true', 'frontMedia:', '  imageUrl: /img/cell.png', '  imageAlt: A cell',
    'backMedia: null', 'extras:', '  cardType: image-question', '  tags: [cells]', 'back: "  spaced  "', '-->', '## Front', 'Q',
  ].join('\n')));
  assert.deepEqual(body.cards, [{
    front: 'Q', back: '  spaced  ', oneSided: true,
    frontMedia: { imageUrl: '/img/cell.png', imageAlt: 'A cell' }, backMedia: null,
    extras: { cardType: 'image-question', tags: ['cells'] },
  }]);
});

test('should accept a BOM, CRLF line ends, leading blank lines and empty cards between separators', () => {
  const text = '\uFEFF\r\n---\r\nversion: 1\r\n---\r\n# T\r\n\r\n---\r\n## Front\r\nq\r\n\r\n---\r\n\r\n---\r\n';
  assert.deepEqual(parseDeckMarkdown(text), { deck: { title: 'T' }, cards: [{ front: 'q', back: null }] });
});

test('should take the title from front matter when there is no heading', () => {
  const body = parseDeckMarkdown(doc('\n## Front\nq', 'title: "  padded  "'));
  assert.equal(body.deck.title, '  padded  ');
});

// --- PARSE_FAILED -------------------------------------------------------------------------------

test('should reject a document that does not start with front matter', () => {
  assertParseFailed('# Title\n\n## Front\nq', 1, /front matter/);
  assertParseFailed('\n\nhello\n---\n', 3, /front matter/);
  assertParseFailed('', 1, /empty/);
  assertParseFailed('```markdown\n---\nversion: 1\n---\n', 1, /code fence/);
});

test('should report unterminated front matter at its opening line', () => {
  assertParseFailed('---\nversion: 1\n# T\n## Front\nq\n', 1, /never closed/);
});

test('should reject front matter that is not a YAML mapping', () => {
  assertParseFailed('---\n- a\n- b\n---\n# T\n## Front\nq', 2, /mapping/);
});

test('should report the line of a front-matter YAML error with PARSE_FAILED', () => {
  assertParseFailed('---\nversion: 1\nlang: en\ntags: [a, b\nvisibility: public\n---\n# T\n## Front\nq', 5, /invalid YAML/);
  assertParseFailed('---\nlang: en\nlang: fr\n---\n# T\n## Front\nq', 3, /invalid YAML/);
});

test('should reject unknown front-matter keys naming the key line', () => {
  assertParseFailed(doc('# T\n## Front\nq', 'version: 1\nLang: en'), 3, /"Lang".*did you mean "lang"/);
  assertParseFailed(doc('# T\n## Front\nq', 'cardType: formula'), 2, /card meta block/);
});

test('should reject a front-matter version other than 1', () => {
  assertParseFailed(doc('# T\n## Front\nq', 'lang: en\nversion: 2'), 3, /unsupported version 2/);
  assertParseFailed(doc('# T\n## Front\nq', 'version: "1"'), 2, /unsupported version/);
});

test('should reject front-matter values of the wrong YAML type', () => {
  assertParseFailed(doc('# T\n## Front\nq', 'version: 1\ntags: biology'), 3, /tags must be a list of strings/);
  assertParseFailed(doc('# T\n## Front\nq', 'tags:\n  - a\n  - true'), 2, /tags must be a list of strings/);
  assertParseFailed(doc('# T\n## Front\nq', 'lang: 12'), 2, /lang must be a string/);
  assertParseFailed(doc('# T\n## Front\nq', 'description: [a]'), 2, /description must be a string/);
  assertParseFailed(doc('# T\n## Front\nq', 'title: {a: 1}'), 2, /title must be a string/);
});

test('should require a title heading when front matter has no title', () => {
  assertParseFailed(doc('\n## Front\nq'), 6, /# Deck title/);
  assertParseFailed(doc('Intro\n# T\n## Front\nq'), 5, /# Deck title/);
  assertParseFailed(doc(''), 5, /# Deck title/);
});

test('should reject a title given differently in front matter and heading', () => {
  assertParseFailed(doc('# Other\n## Front\nq', 'title: T'), 4, /both in front matter/);
});

test('should reject text before the first card', () => {
  assertParseFailed(doc('# T\n\nA deck about cells.\n\n## Front\nq'), 7, /before the first card/);
});

test('should reject text outside a section and after a separator', () => {
  assertParseFailed(doc('# T\n<!-- card\noneSided: true\n-->\nstray\n## Front\nq'), 9, /outside a section/);
  assertParseFailed(doc('# T\n## Front\nq\n---\nstray\n## Front\nr'), 9, /after a card separator/);
});

test('should reject a card with neither a Front nor a Back', () => {
  assertParseFailed(doc('# T\n## Front\nq\n---\n<!-- card\noneSided: true\n-->\n'), 9, /neither/);
});

test('should reject a duplicate Front section in one card', () => {
  assertParseFailed(doc('# T\n## Front\nq\n## Back\na\n## Front\nr'), 10, /duplicate "## Front"/);
});

test('should reject a side given both as a section and in the meta block', () => {
  assertParseFailed(doc('# T\n<!-- card\nback: x\n-->\n## Front\nq\n## Back\na'), 11, /given twice/);
});

test('should report the line of a YAML error inside a card meta block', () => {
  assertParseFailed(doc('# T\n## Front\nq\n---\n<!-- card\noneSided: true\nextras: {cardType: [\n-->\n## Front\nr'), 11, /invalid YAML in the card meta block/);
});

test('should reject invalid card meta blocks', () => {
  assertParseFailed(doc('# T\n<!-- card\ncardType: formula\n-->\n## Front\nq'), 7, /extras fields go under "extras:"/);
  assertParseFailed(doc('# T\n<!-- card\noneSided: yes\n-->\n## Front\nq'), 7, /oneSided must be true or false/);
  assertParseFailed(doc('# T\n<!-- card\nextras: formula\n-->\n## Front\nq'), 7, /extras must be a mapping/);
  assertParseFailed(doc('# T\n<!-- card\nfrontMedia: /a.png\n-->\n## Front\nq'), 7, /frontMedia must be a mapping/);
  assertParseFailed(doc('# T\n<!-- card\nfront: 3\n-->\n'), 7, /front must be a string/);
  assertParseFailed(doc('# T\n<!-- card\n- a\n-->\n## Front\nq'), 7, /mapping/);
  assertParseFailed(doc('# T\n<!-- card\nextras:\n  templateData: {x: .nan}\n-->\n## Front\nq'), 7, /finite/);
});

test('should reject an unterminated or repeated card meta block', () => {
  assertParseFailed(doc('# T\n## Front\nq\n<!-- card\noneSided: true\n'), 8, /never closed by a line "-->"/);
  assertParseFailed(doc('# T\n<!-- card\n-->\n## Front\nq\n<!-- card\n-->'), 10, /second card meta block/);
});

test('should reject a code fence that is never closed', () => {
  assertParseFailed(doc('# T\n## Front\n```js\ncode\n---\n## Front\nq'), 7, /code fence/);
});

test('should reject a document without cards', () => {
  assertParseFailed(doc('# T\n\n---\n'), 7, /no cards/);
});

// --- export ---------------------------------------------------------------------------------------

function detail(title: string, cards: CardContent[], meta: Partial<DeckDetail> = {}): ExportableDeck {
  return {
    id: 'dck_1', title, visibility: 'private', cardCount: cards.length, version: null, lang: 'en', ...meta,
    cards: cards.map((c, order) => ({ id: `crd_${order}`, order, ...c })),
  };
}

test('should export plain sides as sections and omit extras types equal to their defaults', () => {
  const formula = normaliseCard({ front: 'E = mc^2', back: 'Mass-energy', extras: { cardType: 'formula' } }, 'c').content;
  const text = exportDeckMarkdown(detail('Physics', [formula], { tags: ['physics'], description: null }));
  assert.equal(text, [
    '---', 'version: 1', 'lang: en', 'visibility: private', 'tags: [physics]', '---', '# Physics', '',
    '<!-- card', 'extras:', '  cardType: formula', '-->', '## Front', 'E = mc^2', '', '## Back', 'Mass-energy', '',
  ].join('\n'));
});

test('should move a side that would read as structure into the card meta block', () => {
  const card = normaliseCard({ front: 'a\n---\nb', back: '## Front' }, 'c').content;
  const text = exportDeckMarkdown(detail('T', [card]));
  assert.ok(text.includes('<!-- card\nfront: "a\\n---\\nb"\nback: "## Front"\n-->'), text);
  assert.deepEqual(parseDeckMarkdown(text).cards, [{ front: 'a\n---\nb', back: '## Front' }]);
});

// --- round trip -----------------------------------------------------------------------------------

const TRICKY_LINES = [
  '---', '--- ', '----', '***', '## Front', '## back', '##  Front\t', '### Front', '# Title', '<!-- card', '<!-- CARD ', '-->',
  '```', '~~~', '````js', '   ```', '``` a`b', '~~~~', '', ' ', '\t', '...', '- item', 'key: value', '$x^2$', '**bold**',
  'é 😀 中文', '\u2028', '\uFEFF', '\u00a0', '<!-- note -->', '\r', 'text', '  indented',
];
const anyString = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('-', '#', ' ', '\n', '`', '~', '<', '!', '>', 'a', '\r', '\t', ':'), maxLength: 30 }),
);
const multiline = fc.array(fc.oneof(fc.constantFrom(...TRICKY_LINES), anyString), { maxLength: 8 }).map((l) => l.join('\n'));
const sideArb = fc.oneof(anyString, multiline, fc.constantFrom('', ' ', '\n', null));
const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
const mediaArb = fc.oneof(
  fc.constant(undefined), fc.constant(null),
  fc.record({ imageUrl: nullable(anyString), imageAlt: nullable(anyString) }, { requiredKeys: [] }),
);
// Keys that poison prototypes are refused by both formats (test/modules/deck-import/import.test.ts), so none here.
const json = fc.dictionary(anyString, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }).map((v) => JSON.parse(JSON.stringify(v)))
  .filter((v) => !/"(?:__proto__|constructor)"/.test(JSON.stringify(v)));
const extrasArb = fc.record({
  info: nullable(anyString),
  frontType: fc.constantFrom(...CONTENT_TYPES),
  backType: fc.constantFrom(...CONTENT_TYPES),
  contentType: fc.constantFrom(...CONTENT_TYPES),
  cardType: nullable(fc.constantFrom(...CARD_TYPES, ...Object.keys(RETIRED_CARD_TYPES))),
  subject: nullable(anyString),
  topic: nullable(anyString),
  direction: nullable(fc.constantFrom(...CARD_DIRECTIONS)),
  prompt: nullable(anyString),
  difficulty: nullable(fc.constantFrom(...CARD_DIFFICULTIES)),
  tags: nullable(fc.array(anyString, { maxLength: 4 })),
  template: nullable(fc.constantFrom(...Object.keys(TEMPLATES))),
  templateData: nullable(json),
}, { requiredKeys: [] });

const hasText = (s: string | null | undefined) => typeof s === 'string' && s.trim() !== '';
const cardArb = fc.record({
  front: sideArb, back: sideArb, oneSided: fc.option(fc.boolean(), { nil: undefined }),
  frontMedia: mediaArb, backMedia: mediaArb, extras: fc.option(extrasArb, { nil: undefined }),
}).map((raw) => {
  const card: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) if (value !== undefined) card[key] = value;
  if (!hasText(raw.front) && !hasText(raw.back)) card.back = `${raw.back ?? ''}x`;
  return card;
});

const TRICKY_TITLES = ['Deck', ' lead', 'trail ', 'two\nlines', '#', '# nested', '## Front', '---', 'x #', '\uFEFFbom', 'a\u2028b', 'cr\r', '', '\t', 'é 😀'];
const deckArb = fc.record({
  title: fc.oneof(fc.constantFrom(...TRICKY_TITLES), anyString),
  description: fc.option(nullable(fc.oneof(anyString, multiline)), { nil: undefined }),
  lang: fc.option(fc.oneof(fc.constantFrom('en', 'pt-BR', 'no', 'true', '1', 'null'), anyString), { nil: undefined }),
  visibility: fc.option(fc.constantFrom(...VISIBILITIES), { nil: undefined }),
  tags: fc.option(fc.array(anyString, { maxLength: 5 }), { nil: undefined }),
  thumbnail: fc.option(nullable(fc.oneof(fc.constant('https://example.com/t.png'), anyString)), { nil: undefined }),
});

/** The deck metadata as the import service stores it: its defaults applied. */
function storedMeta(meta: Partial<DeckMetaInput> & { title: string }) {
  return {
    title: meta.title, description: meta.description ?? null, lang: meta.lang ?? 'en',
    visibility: meta.visibility ?? 'private', tags: meta.tags ?? [], thumbnail: meta.thumbnail ?? null,
  };
}

test('should reproduce any deck exactly through export and import', () => {
  fc.assert(fc.property(deckArb, fc.array(cardArb, { minLength: 1, maxLength: 30 }), (meta, inputs) => {
    const stored = inputs.map((input, i) => normaliseCard(input, `cards[${i}]`, i).content);
    const deckMeta = storedMeta(meta);
    const markdown = exportDeckMarkdown(detail(deckMeta.title, stored, deckMeta));
    const body = parseDeckMarkdown(markdown);
    assert.deepEqual(storedMeta(body.deck), deckMeta);
    const reimported = body.cards.map((card, i) => normaliseCard(card, `cards[${i}]`, i).content);
    assert.deepEqual(reimported, stored);
  }), { numRuns: 300 });
});

test('should either parse any text or fail with PARSE_FAILED naming a line of the document', () => {
  const lineArb = fc.oneof(fc.constantFrom(...TRICKY_LINES, 'version: 1', 'tags: [a', 'oneSided: true'), anyString);
  const header = fc.constantFrom('', '---\nversion: 1\n---\n# T\n', '---\nlang: en\n---\n# T\n## Front\n');
  fc.assert(fc.property(header, fc.array(lineArb, { maxLength: 20 }), (head, lines) => {
    const text = head + lines.join('\n');
    try {
      parseDeckMarkdown(text);
    } catch (err) {
      assert.ok(err instanceof AppError && err.code === 'PARSE_FAILED', String(err));
      const { line } = err.details as { line: number };
      assert.ok(Number.isInteger(line) && line >= 1 && line <= Math.max(1, text.split(/\r\n|\r|\n/).length), err.message);
    }
  }), { numRuns: 300 });
});
