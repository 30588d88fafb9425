// Per-request work over card text must be linear in its length: the content checks of a card,
// and the deck markdown parser and exporter. Measured as growth (helpers/growth.ts), never as time.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { normaliseCard } from '../../../src/modules/cards/card-content.ts';
import { exportDeckMarkdown, parseDeckMarkdown } from '../../../src/modules/deck-import/deck-markdown.ts';
import type { ExportableDeck } from '../../../src/modules/deck-import/deck-markdown.ts';
import type { CardInput } from '../../../src/modules/decks/decks.schemas.ts';
import { HOSTILE_UNITS, LINEAR_BOUND, growth, runsOf } from '../../helpers/growth.ts';

// The longest side the API takes is 4000 characters; the pure functions also take longer ones.
const N = 4000;
// The units that mean something to deck markdown's structure or its YAML.
const MARKDOWN_UNITS = ['|', ' ', '-', '#', '`', '~', '[', ':', '"', '\\', '\n', '\r', '\r\n', '\t', '\u2028', '- ', '# ', '-\n', '```', '~~~\n', '\n|'];

function cardsOf(text: string): CardInput[] {
  return [
    { front: text, back: `b${text}`, extras: { frontType: 'text', backType: 'text' } },
    { front: text, back: 'b', extras: { cardType: 'formula', frontType: 'text' } },
  ];
}

function assertLinear(label: string, work: (n: number) => void): void {
  const ratio = growth(work, N);
  assert.ok(ratio < LINEAR_BOUND, `${label}: 4 times the input took ${ratio.toFixed(1)} times as long (quadratic is about 16)`);
}

describe('linear work over card text', () => {
  test('should check a card side for rich-text markers in time linear in its length', () => {
    for (const unit of HOSTILE_UNITS) {
      assertLinear(`normaliseCard ${JSON.stringify(unit)}`, (n) => {
        for (const text of runsOf(unit, n)) for (const card of cardsOf(text)) normaliseCard(card, 'cards[0]', 0);
      });
    }
  });

  test('should parse deck markdown with long runs in sections and meta blocks in linear time', () => {
    for (const unit of MARKDOWN_UNITS) {
      const [run] = runsOf(unit, 1);
      assertLinear(`parseDeckMarkdown ${JSON.stringify(unit)}`, (n) => {
        const text = (run).repeat(Math.floor(n / (run).length));
        const quoted = JSON.stringify(text);
        const doc = `---\nversion: 1\nlang: en\n---\n# T\n\n## Front\nq ${text.replace(/^(---|## |<!--|-->|```|~~~)/gm, 'x$1')}\n\n## Back\na\n\n---\n\n<!-- card\nfront: ${quoted}\nextras:\n  info: ${quoted}\n-->\n## Back\nb\n`;
        try { parseDeckMarkdown(doc); } catch { /* a refused document is fine: the time is what counts */ }
      });
    }
  });

  test('should export cards with long runs as deck markdown in linear time', () => {
    for (const unit of MARKDOWN_UNITS) {
      const [run] = runsOf(unit, 1);
      assertLinear(`exportDeckMarkdown ${JSON.stringify(unit)}`, (n) => {
        const text = (run).repeat(Math.floor(n / (run).length));
        const deck: ExportableDeck = {
          id: 'dck_x', title: 'T', visibility: 'private', cardCount: 2, version: null, lang: 'en', tags: [], description: text,
          cards: [
            { id: 'crd_a', order: 0, front: text, back: `b${text}`, oneSided: false, extras: { frontType: 'text', backType: 'markdown', info: text } },
            { id: 'crd_b', order: 1, front: `\n${text}`, back: null, oneSided: false, extras: { frontType: 'markdown', backType: 'markdown' } },
          ],
        };
        exportDeckMarkdown(deck);
      });
    }
  });
});
