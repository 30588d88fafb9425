import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CardDto } from '../../../src/modules/decks/decks.schemas.ts';
import { renderCard } from '../../../src/modules/rendering/card-renderer.ts';
import { renderTextSide } from '../../../src/modules/rendering/text-side.ts';
import { MAX_DECK_MATH_LENGTH, MAX_RENDERED_DECK_LENGTH, RENDERED_DECK_CACHE_BYTES, RenderedDeckCache } from '../../../src/modules/rendering/rendered-deck-cache.ts';

function cards(count: number, text = (i: number) => `Card **${i}**`): CardDto[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `crd_${i}`, order: i, front: text(i), back: `Back ${i}`, oneSided: false,
    extras: { frontType: 'markdown', backType: 'markdown' },
  }));
}

test('should render a deck version once and serve it from the cache after', async () => {
  const cache = new RenderedDeckCache();
  const deck = cards(3);
  const first = await cache.render('dck_1', 'v1', deck);
  assert.deepEqual(first.cards, deck.map((card) => renderCard(card)));
  assert.equal(cache.get('dck_1', 'v1'), first);
  assert.equal(await cache.render('dck_1', 'v1', []), first, 'a cached version is not rendered again');
  assert.equal(cache.get('dck_1', 'v2'), undefined);
  assert.equal(cache.get('dck_2', 'v1'), undefined);
});

test('should share one rendering between concurrent calls for the same version', async () => {
  const cache = new RenderedDeckCache();
  const [a, b] = await Promise.all([cache.render('dck_1', 'v1', cards(5)), cache.render('dck_1', 'v1', cards(5))]);
  assert.equal(a, b);
});

test('should render a new version, reusing the cards that did not change and keeping their new id and order', async () => {
  const cache = new RenderedDeckCache();
  const v1 = await cache.render('dck_1', '2025-01-01T00:00:00.000Z', cards(3));
  const changed = cards(3);
  changed[1] = { ...changed[1], front: 'Changed' };
  const moved = [{ ...changed[2], id: 'crd_2', order: 0 }, { ...changed[0], order: 1 }, { ...changed[1], order: 2 }];
  const v2 = await cache.render('dck_1', '2025-01-02T00:00:00.000Z', moved);
  assert.deepEqual(v2.cards, moved.map((card) => renderCard(card)));
  assert.equal(v2.cards[0].front, v1.cards[2].front);
  assert.equal(cache.get('dck_1', '2025-01-01T00:00:00.000Z'), undefined, 'one version per deck is kept');
});

test('should not let an older version replace a newer one', async () => {
  const cache = new RenderedDeckCache();
  await cache.render('dck_1', '2025-01-02T00:00:00.000Z', cards(1));
  await cache.render('dck_1', '2025-01-01T00:00:00.000Z', cards(2));
  assert.ok(cache.get('dck_1', '2025-01-02T00:00:00.000Z'));
});

test('should evict the least recently viewed decks past its byte bound', async () => {
  const one = await new RenderedDeckCache().render('x', 'v', cards(20));
  const cache = new RenderedDeckCache({ maxBytes: one.length * 2 + 10 });
  await cache.render('dck_a', 'v', cards(20));
  await cache.render('dck_b', 'v', cards(20));
  cache.get('dck_a', 'v');
  await cache.render('dck_c', 'v', cards(20));
  assert.ok(cache.get('dck_a', 'v'));
  assert.equal(cache.get('dck_b', 'v'), undefined);
  assert.ok(cache.get('dck_c', 'v'));
});

test('should render the rest of a deck as text once its rendered size passes the deck budget', async () => {
  const heavy = cards(20, () => '$a_1$ '.repeat(20));
  const oneCard = renderCard(heavy[0]);
  const budget = 5 * (oneCard.front!.length + oneCard.back!.length);
  const deck = await new RenderedDeckCache({ maxDeckLength: budget }).render('dck_h', 'v', heavy);
  const fullCards = deck.cards.filter((card) => card.front!.includes('katex'));
  assert.equal(fullCards.length, 6, 'cards are rendered in full until the budget is passed');
  assert.ok(deck.cards.slice(6).every((card) => card.front === renderTextSide('$a_1$ '.repeat(20))));
});

test('should keep the default deck budget large enough for real decks and small enough for the cache', () => {
  assert.ok(MAX_RENDERED_DECK_LENGTH >= 4_000_000);
  assert.ok(MAX_RENDERED_DECK_LENGTH * 4 <= RENDERED_DECK_CACHE_BYTES);
});

test('should show the formulas past the deck math budget as written, and reuse cards only where a fresh rendering agrees', async () => {
  const mathCards = cards(6, (i) => `$x_${i}$ and $y_${i}$`); // 6 characters of formula source per card
  const cache = new RenderedDeckCache({ maxDeckMathLength: 20 });
  const v1 = await cache.render('dck_m', '2025-01-01T00:00:00.000Z', mathCards);
  const refusedIn = v1.cards.map((card) => card.front!.includes('math-error'));
  assert.deepEqual(refusedIn, [false, false, false, true, true, true]);
  // Card 0 loses its math: card 3 now fits, and must be rendered again rather than reused.
  const changed = [{ ...mathCards[0], front: 'no math' }, ...mathCards.slice(1)];
  const v2 = await cache.render('dck_m', '2025-01-02T00:00:00.000Z', changed);
  const fresh = await new RenderedDeckCache({ maxDeckMathLength: 20 }).render('dck_m', 'v', changed);
  assert.deepEqual(v2.cards, fresh.cards);
  assert.deepEqual(v2.cards.map((card) => card.front!.includes('math-error')), [false, false, false, false, true, true]);
  assert.ok(MAX_DECK_MATH_LENGTH >= 50_000);
});
