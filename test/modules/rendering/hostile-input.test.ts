// Hostile sizes and shapes: 100,000 copies of one character and deep nesting, through every
// content type. No exception, output bounded by a small multiple of the input (no timing asserted
// here: bench/render.ts measures how the work grows with the input).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CONTENT_TYPES, type CardDto } from '../../../src/modules/decks/decks.schemas.ts';
import { MAX_SIDE_HTML_LENGTH, renderCard, renderSide } from '../../../src/modules/rendering/card-renderer.ts';
import { renderSideMedia } from '../../../src/modules/rendering/media.ts';
import { assertSafeHtml } from '../../helpers/rendered-html.ts';

const N = 100_000;

const repeated: Record<string, string> = {
  'letters': 'a'.repeat(N),
  'less-than signs': '<'.repeat(N),
  'ampersands': '&'.repeat(N),
  'open brackets': '['.repeat(N),
  'close brackets': ']'.repeat(N),
  'open braces': '{'.repeat(N),
  'backslashes': '\\'.repeat(N),
  'dollars': '$'.repeat(N),
  'asterisks': '*'.repeat(N),
  'underscores': '_'.repeat(N),
  'backticks': '`'.repeat(N),
  'pipes': '|'.repeat(N),
  'greater-than signs': '>'.repeat(N),
  'hashes': '#'.repeat(N),
  'exclamation marks': '!'.repeat(N),
  'tildes': '~'.repeat(N),
  'newlines': '\n'.repeat(N),
  'carets': '^'.repeat(N),
  'check marks': '\u2713'.repeat(N),
};

const nested: Record<string, string> = {
  'blockquotes': '>'.repeat(5000) + ' deep',
  'list items': Array.from({ length: 2000 }, (_, i) => `${'  '.repeat(i)}- item`).join('\n'),
  'link brackets': '['.repeat(20_000) + 'x' + '](https://a.example)'.repeat(200),
  'image brackets': '!['.repeat(20_000),
  'emphasis': '*a '.repeat(20_000) + 'b*'.repeat(20_000),
  'latex braces': '{'.repeat(20_000) + 'x' + '}'.repeat(20_000),
  'latex fractions': '\\frac{'.repeat(3000) + '1}{2}'.repeat(3000),
  'latex subscripts': 'a_{'.repeat(10_000) + '}'.repeat(10_000),
  'latex left-right': '\\left('.repeat(5000) + '\\right)'.repeat(5000),
  'latex sizing': '\\Huge x'.repeat(10_000),
  'latex environments': '\\begin{matrix}'.repeat(2000) + '\\end{matrix}'.repeat(2000),
  'html spans': '<span>'.repeat(20_000) + 'x',
  'html comments': '<!--'.repeat(20_000),
  'html attributes': '<p title="'.repeat(10_000),
  'task lists': '- [ ] x\n'.repeat(1000),
  'markers': '- \u2713 x\n'.repeat(2000),
  'inline math': '$x$ '.repeat(5000),
  'display math blocks': '$$\n'.repeat(10_000),
  'table rows': '|a|b|\n|-|-|\n' + '|x|y|\n'.repeat(5000),
};

for (const [name, source] of Object.entries({ ...repeated, ...nested })) {
  test(`should render ${source.length.toLocaleString('en')} characters of ${name} in every content type without an exception`, () => {
    for (const type of CONTENT_TYPES) {
      const html = renderSide(source, type);
      assert.ok(html.length <= Math.max(MAX_SIDE_HTML_LENGTH, source.length * 7) + 100, `${type}: ${html.length} characters`);
      if (source.length <= 20_000) assertSafeHtml(html, `${name} as ${type}`);
    }
  });
}

test('should render a card whose every field is at its limit of hostile characters', () => {
  const side = '[!$<{'.repeat(800);
  const card: CardDto = {
    id: 'crd_h', order: 0, front: side, back: side, oneSided: false,
    frontMedia: { imageUrl: `https://img.example/${'"'.repeat(2000)}`, imageAlt: '"'.repeat(500) },
    extras: { frontType: 'latex', backType: 'markdown', info: '<'.repeat(1000), subject: '<'.repeat(60), topic: '>'.repeat(80) },
  };
  const rendered = renderCard(card);
  assert.ok(rendered.front !== null && rendered.back !== null && rendered.info !== null);
});

test('should render an image URL of 100,000 characters as nothing', () => {
  assert.equal(renderSideMedia({ imageUrl: `https://img.example/${'a'.repeat(N)}` }), '');
});
