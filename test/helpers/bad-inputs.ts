// fast-check generators of request parts that are invalid by construction: each takes a valid
// value (from deck-arbitraries.ts) and breaks exactly one rule of the spec, so any 2xx is a bug.
import fc from 'fast-check';
import { card, deckMeta, importBody, markdownOf, type Json } from './deck-arbitraries.ts';

type Obj = Record<string, Json>;

/** Sets `key` as an own property, even `__proto__`, so JSON.stringify sends it. */
function withKey(value: Obj, key: string, v: Json): Obj {
  return { ...value, [key]: v };
}

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '__defineGetter__'];
const unknownKey = (allowed: string[]) => fc.oneof(
  fc.constantFrom(...PROTO_KEYS, 'id', 'order', 'version', 'cardCount', 'userId', 'Front', 'TITLE', ''),
  fc.string({ maxLength: 12 }),
).filter((k) => !allowed.includes(k));

// Over-long strings use one-unit characters: JSON Schema lengths count code points.
const overLong = (max: number) => fc.tuple(fc.integer({ min: max + 1, max: max + 40 }), fc.constantFrom('x', 'é', '字', ' '))
  .map(([n, ch]) => ch.repeat(n));
const notString = fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }), fc.constant({}), fc.constant({ text: 'x' })) as fc.Arbitrary<Json>;
const notStringOrNull = notString;
const notStringAllowingNull = fc.oneof(notString, fc.constant(null));
const notBoolean = fc.oneof(fc.integer(), fc.constantFrom('true', 'false', '', 'yes'), fc.constant(null), fc.constant([true])) as fc.Arbitrary<Json>;
const notObject = fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.boolean(), fc.constant([]), fc.constant([{}])) as fc.Arbitrary<Json>;
const badEnum = (allowed: string[]) => fc.oneof(
  fc.constantFrom('', 'none', 'BASIC', 'Basic', 'image', 'plain', 'secret', 'PUBLIC', ' public', 'public ', 'latex\n', 'other'),
  fc.string({ maxLength: 12 }),
).filter((v) => !allowed.includes(v));

export const BAD_URLS = [
  'http://example.com/a.png', 'HTTP://EXAMPLE.COM/A.PNG', 'javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:image/png;base64,AAAA',
  'vbscript:msgbox(1)', 'file:///etc/passwd', '//evil.example/x.png', 'ftp://example.com/a.png', 'https://', 'example.com/a.png',
  ' https://example.com/a.png', 'https://exa mple.com/a.png', 'relative/path.png', '', '\\\\server\\share.png',
  // Root-relative in appearance only: browsers read these as //evil.example.
  '/\\evil.example', '/\\/evil.example', '/\t/evil.example', '/\n/evil.example', '/a\u0000.png', 'https://\\evil.example',
];
const badImageUrl = fc.oneof<fc.Arbitrary<Json>[]>(
  fc.constantFrom(...BAD_URLS),
  fc.constant(`https://example.com/${'a'.repeat(2040)}`),
  fc.constant(`/${'a'.repeat(2048)}`),
  notString,
);
const badThumbnail = fc.oneof<fc.Arbitrary<Json>[]>(
  fc.constantFrom(...BAD_URLS, '/relative/thumb.png', 'https://example.com/a b.png'),
  fc.constant(`https://example.com/${'a'.repeat(2040)}`),
  notString,
);

const badMedia: fc.Arbitrary<Json> = fc.oneof(
  notObject,
  badImageUrl.map((imageUrl) => ({ imageUrl })),
  fc.oneof(overLong(500), notString).map((imageAlt) => ({ imageUrl: '/ok.png', imageAlt })),
  fc.tuple(unknownKey(['imageUrl', 'imageAlt']), fc.string()).map(([k, v]) => withKey({ imageUrl: '/ok.png' }, k, v)),
);

const CONTENT_TYPES = ['text', 'markdown', 'html', 'latex'];
const EXTRAS_KEYS = ['info', 'frontType', 'backType', 'contentType', 'cardType', 'subject', 'topic', 'direction', 'prompt', 'difficulty', 'tags', 'template', 'templateData'];
/** A change that makes any extras object invalid. */
const extrasBreak: fc.Arbitrary<[string, Json]> = fc.oneof(
  fc.tuple(unknownKey(EXTRAS_KEYS), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>),
  fc.tuple(fc.constantFrom('frontType', 'backType', 'contentType'), fc.oneof(badEnum(CONTENT_TYPES), fc.constant(null), fc.integer()) as fc.Arbitrary<Json>),
  fc.tuple(fc.constant('cardType'), badEnum(['basic', 'formula', 'definition', 'name-formula', 'code-behavior', 'comparison', 'procedure', 'explanation', 'pitfall', 'image-question', 'image-explanation'])),
  fc.tuple(fc.constant('direction'), badEnum(['name->formula', 'formula->name'])),
  fc.tuple(fc.constant('difficulty'), badEnum(['easy', 'medium', 'hard'])),
  fc.tuple(fc.constant('template'), badEnum(['default', 'math', 'code'])),
  fc.tuple(fc.constant('info'), fc.oneof(overLong(1000), notString)),
  fc.tuple(fc.constant('subject'), fc.oneof(overLong(60), notString)),
  fc.tuple(fc.constant('topic'), fc.oneof(overLong(80), notString)),
  fc.tuple(fc.constant('prompt'), fc.oneof(overLong(200), notString)),
  fc.tuple(fc.constant('tags'), fc.oneof(
    fc.array(fc.string({ maxLength: 30 }), { minLength: 11, maxLength: 30 }),
    overLong(30).map((t) => ['ok', t]),
    fc.constant(['ok', 3]),
    fc.constantFrom('a,b', 5, true, {}),
  ) as fc.Arbitrary<Json>),
  fc.tuple(fc.constant('templateData'), fc.oneof(fc.constant([]), fc.constant([1, 2]), fc.string(), fc.integer(), fc.boolean()) as fc.Arbitrary<Json>),
);
const badExtras: fc.Arbitrary<Json> = fc.oneof(
  { weight: 1, arbitrary: fc.oneof(notObject, fc.constant(null)) },
  { weight: 6, arbitrary: fc.tuple(card, extrasBreak).map(([c, [k, v]]) => withKey((c.extras as Obj | undefined) ?? {}, k, v)) },
);

const CARD_KEYS = ['front', 'back', 'oneSided', 'frontMedia', 'backMedia', 'extras'];
/** A change that makes any card (or card patch) invalid. */
const cardBreak: fc.Arbitrary<[string, Json]> = fc.oneof(
  fc.tuple(fc.constantFrom('front', 'back'), fc.oneof(notStringOrNull, overLong(4000))),
  fc.tuple(fc.constant('oneSided'), notBoolean),
  fc.tuple(fc.constantFrom('frontMedia', 'backMedia'), badMedia),
  fc.tuple(fc.constant('extras'), badExtras),
  fc.tuple(unknownKey(CARD_KEYS), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>),
);

export const badCard: fc.Arbitrary<Json> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(card, cardBreak).map(([c, [k, v]]) => withKey(c, k, v)) },
  // Both sides blank: valid to the schema, refused by the service.
  { weight: 2, arbitrary: fc.tuple(card, fc.constantFrom('', ' ', '\n\t ', null), fc.constantFrom('', '  ', null)).map(([c, front, back]) => ({ ...c, front, back })) },
  { weight: 1, arbitrary: fc.oneof(notObject, fc.constant(null)) },
);

const DECK_KEYS = ['title', 'description', 'lang', 'visibility', 'tags', 'thumbnail'];
/** A change that makes deck metadata (import's deck, or a PATCH body) invalid. */
export const deckBreak: fc.Arbitrary<[string, Json]> = fc.oneof(
  fc.tuple(fc.constant('title'), fc.oneof<fc.Arbitrary<Json>[]>(fc.constantFrom('', ' ', '\n\t', '\u00a0'), overLong(200), notStringAllowingNull)),
  fc.tuple(fc.constant('description'), fc.oneof(overLong(5000), notString)),
  fc.tuple(fc.constant('lang'), fc.oneof<fc.Arbitrary<Json>[]>(fc.constantFrom('', 'e', 'english', 'en_US', 'en-', '-en', 'e1', 'en-toolongsubtag', `en${'-ab'.repeat(12)}`), notStringAllowingNull)),
  fc.tuple(fc.constant('visibility'), fc.oneof<fc.Arbitrary<Json>[]>(badEnum(['public', 'unlisted', 'private']), fc.constant(null), fc.integer())),
  // Deck tags are judged once trimmed and de-duplicated: over the limits after that, or over 200 as sent.
  fc.tuple(fc.constant('tags'), fc.oneof(
    fc.uniqueArray(fc.stringMatching(/^[a-z0-9]{1,40}$/), { minLength: 21, maxLength: 40, selector: (t) => t.toLowerCase() }),
    overLong(40).filter((t) => t.trim().length > 40).map((t) => ['ok', ` ${t} `]),
    fc.integer({ min: 201, max: 260 }).map((n) => Array.from({ length: n }, () => 'same')),
    fc.constant(['ok', null]),
    fc.constantFrom('a,b', null, 3, {}),
  ) as fc.Arbitrary<Json>),
  fc.tuple(fc.constant('thumbnail'), badThumbnail),
  fc.tuple(unknownKey(DECK_KEYS), fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>),
);

const validCards = (n: number) => Array.from({ length: n }, (_, i) => ({ front: `q${i}`, back: `a${i}` }));

function replaceAt<T>(list: T[], index: number, value: T): T[] {
  const copy = [...list];
  copy[index % copy.length] = value;
  return copy;
}

/** An invalid body for POST /decks/import (JSON). */
export const badImportBody: fc.Arbitrary<Json> = fc.oneof(
  fc.tuple(importBody, deckBreak).map(([b, [k, v]]) => ({ ...b, deck: withKey(b.deck, k, v) })),
  fc.tuple(importBody, badCard, fc.nat()).map(([b, c, i]) => ({ ...b, cards: replaceAt(b.cards as Json[], i, c) })),
  fc.tuple(importBody, fc.constantFrom('deck', 'cards')).map(([b, k]) => { const { [k]: _gone, ...rest } = b; return rest; }),
  importBody.map((b) => ({ ...b, cards: [] })),
  fc.integer({ min: 251, max: 400 }).map((n) => ({ deck: { title: 'huge' }, cards: validCards(n) })),
  fc.tuple(importBody, notObject).map(([b, cards]) => ({ ...b, cards })),
  fc.tuple(importBody, fc.oneof(notObject, fc.constant(null))).map(([b, deck]) => ({ ...b, deck })),
  fc.tuple(importBody, unknownKey(['deck', 'cards']), fc.jsonValue({ maxDepth: 1 })).map(([b, k, v]) => withKey(b as unknown as Obj, k, v as Json)),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => !(typeof v === 'object' && v !== null && !Array.isArray(v) && 'deck' in v && 'cards' in v)) as fc.Arbitrary<Json>,
);

/** An invalid body for POST /decks/{deckId}/cards. */
export const badAppendBody: fc.Arbitrary<Json> = fc.oneof<fc.Arbitrary<Json>[]>(
  fc.tuple(fc.array(card, { minLength: 1, maxLength: 4 }), badCard, fc.nat()).map(([cards, c, i]) => ({ cards: replaceAt(cards as Json[], i, c) })),
  fc.constant({ cards: [] as Json[] }),
  fc.constant({}),
  fc.integer({ min: 251, max: 400 }).map((n) => ({ cards: validCards(n) })),
  notObject.map((cards) => ({ cards })),
  fc.tuple(fc.array(card, { minLength: 1, maxLength: 2 }), unknownKey(['cards']), fc.jsonValue({ maxDepth: 1 })).map(([cards, k, v]) => withKey({ cards }, k, v as Json)),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => !(typeof v === 'object' && v !== null && !Array.isArray(v) && 'cards' in v)) as fc.Arbitrary<Json>,
);

/** An invalid body for PATCH /decks/{deckId}/cards/{cardId} (the card's other side is non-blank). */
export const badCardPatch: fc.Arbitrary<Json> = fc.oneof(
  fc.constant({}),
  fc.tuple(card, cardBreak).map(([c, [k, v]]) => withKey(c, k, v)),
  fc.tuple(cardBreak).map(([[k, v]]) => withKey({}, k, v)),
  fc.constantFrom({ front: '', back: null }, { front: ' ', back: '\n' }, { front: null, back: '' }),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => !(typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => CARD_KEYS.includes(k)))) as fc.Arbitrary<Json>,
);

/** An invalid body for PATCH /decks/{deckId}. */
export const badDeckPatch: fc.Arbitrary<Json> = fc.oneof(
  fc.constant({}),
  fc.tuple(deckMeta, deckBreak).map(([m, [k, v]]) => withKey(m, k, v)),
  deckBreak.map(([k, v]) => withKey({}, k, v)),
  fc.jsonValue({ maxDepth: 3 }).filter((v) => !(typeof v === 'object' && v !== null && !Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).every((k) => DECK_KEYS.includes(k)))) as fc.Arbitrary<Json>,
);

// ------------------------------------------------------------------------------------------------
// Deck markdown

export const CANONICAL = '---\nversion: 1\nlang: en\n---\n# Title\n\n## Front\nq1\n\n## Back\na1\n\n---\n\n## Front\nq2\n\n## Back\na2\n';

const BAD_FRONT_MATTER_LINES = [
  'visibility: secret', 'version: 2', 'version: "1"', 'colour: red', '__proto__: x', 'constructor: x', 'lang: english',
  'thumbnail: http://example.com/t.png', 'tags: just text', 'title: 5', 'lang: [unclosed', 'description: {a: 1}',
  'oneSided: true', 'Lang: en', 'tags: [a, [b]]', 'key: !!binary aGVsbG8=', 'x: &a [*a]', 'lang: .nan',
];
const BAD_CARDS = [
  '## Front\nq\n## Front\nagain', 'stray text\n## Front\nq', '## Front\n```\nnever closed', '## Front\nq\n<!-- card\noneSided: true\n',
  '<!-- card\noneSided: maybe\n-->\n## Front\nq', '<!-- card\nextras: {cardType: fancy}\n-->\n## Front\nq',
  '<!-- card\nextras: {__proto__: {polluted: true}}\n-->\n## Front\nq', '<!-- card\nextras:\n  constructor: {prototype: {x: 1}}\n-->\n## Front\nq',
  '<!-- card\nfrontMedia: {imageUrl: "javascript:alert(1)"}\n-->\n## Front\nq', '<!-- card\nbackMedia: {imageUrl: "http://x.io/a.png"}\n-->\n## Back\nb',
  '<!-- card\nunknownKey: 1\n-->\n## Front\nq', '<!-- card\ncardType: basic\n-->\n## Front\nq', '## Front\n   \n## Back\n',
  '<!-- card\nfront: x\n-->\n## Front\ny', `## Front\n${'x'.repeat(4001)}`, '<!-- card\nextras: [1, 2]\n-->\n## Front\nq',
  '<!-- card\nextras: {tags: [a, b, c, d, e, f, g, h, i, j, k]}\n-->\n## Front\nq', '<!-- card\n-->\n<!-- card\n-->\n## Front\nq',
  '<!-- card\nfrontMedia: [/a.png]\n-->\n## Front\nq', '<!-- card\nextras: {templateData: &t {a: [*t]}}\n-->\n## Front\nq',
  // The block style the exporter writes.
  '<!-- card\nextras:\n  cardType: fancy\n-->\n## Front\nq', '<!-- card\nfrontMedia:\n  imageUrl: http://x.io/a.png\n-->\n## Front\nq',
  '<!-- card\noneSided: yes\n-->\n## Front\nq', `<!-- card\nextras:\n  subject: ${'x'.repeat(61)}\n-->\n## Front\nq`,
  '<!-- card\nextras:\n  __proto__:\n    polluted: true\n-->\n## Front\nq', '<!-- card\nextras:\n  templateData:\n    a: &x [*x]\n-->\n## Front\nq',
  '<!-- card\nextras:\n  tags:\n    - ok\n    - 3\n-->\n## Front\nq', '<!-- card\nbackMedia:\n  imageAlt: alt\n  extra: 1\n-->\n## Back\nb',
];

const lines = fc.array(fc.oneof(fc.constantFrom('---', '## Front', '## Back', '<!-- card', '-->', '```', '# T', '', 'key: value', 'x'), fc.string({ maxLength: 20 })), { maxLength: 12 })
  .map((ls) => ls.join('\n'));

/** An invalid deck markdown document. */
export const badMarkdown: fc.Arbitrary<string> = fc.oneof(
  // Structure broken in a document whose layout is known.
  fc.constantFrom(
    CANONICAL.split('\n').slice(1).join('\n'), `\`\`\`markdown\n${CANONICAL}\`\`\`\n`, '', '   \n\n', CANONICAL.replace('# Title\n', ''),
    CANONICAL.slice(0, CANONICAL.indexOf('## Front')), CANONICAL.replace('---\n# Title', '# Title'), `${CANONICAL}\n---\n\n## Front\n## Front\n`,
  ),
  // Generated decks with one bad front-matter line or one bad card.
  fc.tuple(importBody, fc.constantFrom(...BAD_FRONT_MATTER_LINES)).map(([b, l]) => markdownOf(b).replace(/^---\n/, `---\n${l}\n`)),
  fc.tuple(importBody, fc.constantFrom(...BAD_CARDS)).map(([b, c]) => `${markdownOf(b)}\n---\n\n${c}\n`),
  fc.integer({ min: 251, max: 300 }).map((n) => `---\nversion: 1\n---\n# Huge\n\n${validCards(n).map((c) => `## Front\n${c.front}`).join('\n\n---\n\n')}\n`),
  // Noise: without front matter, or after front matter that can never validate.
  fc.oneof(fc.string(), fc.string({ unit: 'binary' }), lines).map((s) => (/^\s*---/.test(s) ? `x${s}` : s)),
  lines.map((s) => `---\nversion: 1\nvisibility: secret\n---\n${s}`),
);

