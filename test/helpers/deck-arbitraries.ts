// fast-check generators of valid import bodies (every field JSON can carry, tricky text), and a
// writer of the equivalent deck markdown document, for property tests over HTTP.
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type CardBody = Record<string, Json>;
export type ImportBodyValue = { deck: Record<string, Json>; cards: CardBody[] };

// Lines that mean something to markdown or to the deck format, so sides collide with structure.
const TRICKY_LINES = [
  '---', '--- ', '## Front', '## Back', '## front', '##Front', '<!-- card', '-->', '```', '```js', '~~~', '````',
  '# Title', '#', '', ' ', '   ', '\t', 'key: value', '- item', '1. first', '> quote', '$x^2$', '$$\\int_0^1 x\\,dx$$',
  '**bold**', '| a | b |', '|---|---|', '✓ right', '✗ wrong', '! careful', '→ therefore', 'emoji 🧠🦀', 'ünïcödé',
  'עברית RTL', 'back\\slash', '"quoted"', "'single'", '<b>html</b> &amp;', '  leading', 'trailing  ', '\u00a0nbsp',
  'zero\u200bwidth', 'tab\tinside', 'null', 'true', '~', '[not, a, list]', '{a: 1}', '*', '&anchor', '%percent', '@at',
];

const line = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...TRICKY_LINES) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  // Any code point; lone surrogates are not text (refused, tested apart), so they are paired or replaced.
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((s) => s.toWellFormed()) },
);

/** Text of at most `max` characters: tricky lines joined by various line breaks. */
export const text = (max: number) => fc.tuple(line, fc.array(fc.tuple(fc.constantFrom('\n', '\n', '\n\n', ' ', '', '\r\n'), line), { maxLength: 5 }))
  .map(([first, rest]) => rest.reduce((out, [sep, l]) => out + sep + l, first).slice(0, max).toWellFormed()); // a cut pair is not text

const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null, freq: 4 });
const shortString = (max: number) => fc.oneof(fc.string({ maxLength: max }), text(max));

const httpsUrl = fc.tuple(fc.domain(), fc.array(fc.stringMatching(/^[\w.~-]{1,12}$/), { maxLength: 3 }), fc.boolean())
  .map(([host, segments, query]) => `https://${host}/${segments.join('/')}${query ? '?w=200&h=100' : ''}`);
const imageUrl = fc.oneof(httpsUrl, fc.constantFrom('/img/a.png', '/x', '/deep/path/to/image.svg?v=2', 'HTTPS://EXAMPLE.COM/A.PNG'));

const media = nullable(fc.record({ imageUrl: nullable(imageUrl), imageAlt: nullable(shortString(500)) }, { requiredKeys: [] }));

// Keys the service refuses: __proto__ and constructor (prototype poisoning), one backslash (see validation.ts).
const jsonKey = fc.string({ maxLength: 10 }).filter((k) => k !== '__proto__' && k !== 'constructor' && k !== '\\');
// Keys named __proto__ (and keys of one backslash) are refused at any depth, in JSON and in markdown alike (tested apart).
const noProtoKey = (value: unknown) => !/"(?:__proto__|constructor)"|[{,]"\\\\":/.test(JSON.stringify(value));
const templateData = fc.dictionary(jsonKey, (fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>).filter(noProtoKey), { maxKeys: 4 });

const contentType = fc.constantFrom('text', 'markdown', 'html', 'latex');
export const extras = fc.record({
  info: nullable(shortString(1000)),
  frontType: contentType,
  backType: contentType,
  contentType,
  cardType: nullable(fc.constantFrom('basic', 'formula', 'definition', 'name-formula', 'code-behavior', 'comparison', 'procedure', 'explanation', 'pitfall', 'image-question', 'image-explanation')),
  subject: nullable(shortString(60)),
  topic: nullable(shortString(80)),
  direction: nullable(fc.constantFrom('name->formula', 'formula->name')),
  prompt: nullable(shortString(200)),
  difficulty: nullable(fc.constantFrom('easy', 'medium', 'hard')),
  tags: nullable(fc.array(shortString(30), { maxLength: 10 })),
  template: nullable(fc.constantFrom('default', 'math', 'code')),
  templateData: nullable(templateData),
}, { requiredKeys: [] });

const hasText = (value: Json | undefined) => typeof value === 'string' && value.trim() !== '';

export const card: fc.Arbitrary<CardBody> = fc.record({
  front: nullable(text(4000)),
  back: nullable(text(4000)),
  oneSided: fc.boolean(),
  frontMedia: media,
  backMedia: media,
  extras,
}, { requiredKeys: [] }).map((c) => c as CardBody).filter((c) => hasText(c.front) || hasText(c.back));

const title = fc.oneof(
  fc.string({ minLength: 1, maxLength: 200 }),
  text(200),
  fc.constantFrom('Cell biology', '  padded title  ', '# hash first', 'multi\nline', 'ünïcödé 🧠', '---'),
).filter((t) => t.length >= 1 && /\S/.test(t));

export const deckMeta = fc.record({
  title,
  description: nullable(fc.oneof(text(5000), fc.string({ maxLength: 100 }))),
  lang: fc.constantFrom('en', 'fr', 'pl', 'pt-BR', 'zh-Hant-TW'),
  visibility: fc.constantFrom('public', 'unlisted', 'private'),
  tags: fc.array(fc.oneof(fc.string({ maxLength: 40 }), fc.constantFrom('Bio', 'bio', ' spaced ', '', 'x')), { maxLength: 20 }),
  thumbnail: nullable(httpsUrl),
}, { requiredKeys: ['title'] }) as fc.Arbitrary<Record<string, Json>>;

export const importBody: fc.Arbitrary<ImportBodyValue> = fc.record({ deck: deckMeta, cards: fc.array(card, { minLength: 1, maxLength: 6 }) });

// ------------------------------------------------------------------------------------------------
// Deck markdown written by hand from a JSON body: sections where the text is plainly safe, YAML
// (JSON flow style, ASCII-escaped) for everything else.

const yamlValue = (value: Json) => JSON.stringify(value).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const yamlBlock = (entries: [string, Json][]) => entries.map(([key, value]) => `${key}: ${yamlValue(value)}\n`).join('');

function safeInSection(value: string): boolean {
  if (value === '' || value.includes('\r')) return false;
  const lines = value.split('\n');
  if ((lines[0]).trim() === '' || (lines[lines.length - 1]).trim() === '') return false;
  return lines.every((l) => !/^(?:#|---|<!--|-->)/.test(l) && !/^\s*(?:```|~~~)/.test(l));
}

export function markdownOf(body: ImportBodyValue): string {
  const { title: deckTitle, ...meta } = body.deck;
  const titleInHeading = typeof deckTitle === 'string' && safeInSection(deckTitle) && !deckTitle.includes('\n') && deckTitle.trim() === deckTitle;
  const front: [string, Json][] = [['version', 1], ...Object.entries(meta)];
  if (!titleInHeading) front.push(['title', deckTitle]);
  const cards = body.cards.map((c) => {
    const { front: f, back: b, ...rest } = c;
    const metaEntries = Object.entries(rest);
    const sections: string[] = [];
    for (const [key, name, value] of [['front', 'Front', f], ['back', 'Back', b]] as const) {
      if (value === undefined || value === null) continue;
      if (safeInSection(value as string)) sections.push(`## ${name}\n${value as string}`);
      else metaEntries.push([key, value]);
    }
    const block = metaEntries.length > 0 ? `<!-- card\n${yamlBlock(metaEntries)}-->\n` : '';
    return `${block}${sections.join('\n\n')}`;
  });
  return `---\n${yamlBlock(front)}---\n${titleInHeading ? `# ${deckTitle}\n` : ''}\n${cards.join('\n\n---\n\n')}\n`;
}
