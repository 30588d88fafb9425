// npx node bench/render.ts: the card renderer's figures (docs/rendering.md explains them).
// - A realistic 250-card deck (bench/deck-fixture.ts): first rendering, rendering after one card
//   changed (the cache reuses the other 249), a cached read, and the rendered size.
// - How the work grows with hostile input: each pattern at 4,000 and 16,000 characters in each
//   content type; a ratio near 4 is linear.
// - A hostile 250-card deck (every side 4,000 characters of a costly pattern): one rendering.
// Medians of interleaved rounds; the machine is shared, so read ratios rather than absolutes.
import { normaliseCard } from '../src/modules/cards/card-content.ts';
import type { CardDto, ContentType } from '../src/modules/decks/decks.schemas.ts';
import { renderSide } from '../src/modules/rendering/card-renderer.ts';
import { RenderedDeckCache } from '../src/modules/rendering/rendered-deck-cache.ts';
import { benchDeck } from './deck-fixture.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

function deckCards(): CardDto[] {
  return benchDeck().cards.map((input, order) => ({ id: `crd_${order}`, order, ...normaliseCard(input as never, `cards[${order}]`).content }));
}

async function realisticDeck(): Promise<void> {
  const cards = deckCards();
  const first: number[] = [];
  const afterChange: number[] = [];
  const cached: number[] = [];
  let size = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const cache = new RenderedDeckCache();
    let t = performance.now();
    const deck = await cache.render('dck_bench', '2025-01-01T00:00:00.000Z', cards);
    first.push(performance.now() - t);
    size = deck.length;
    const changed = cards.map((card, i) => (i === 100 ? { ...card, back: `${card.back} (edited ${round})` } : card));
    t = performance.now();
    await cache.render('dck_bench', '2025-01-02T00:00:00.000Z', changed);
    afterChange.push(performance.now() - t);
    t = performance.now();
    for (let i = 0; i < 1000; i++) cache.get('dck_bench', '2025-01-02T00:00:00.000Z');
    cached.push((performance.now() - t) / 1000);
  }
  console.log('Realistic 250-card deck');
  console.log(`  first rendering        ${median(first).toFixed(1)} ms (median of ${ROUNDS})`);
  console.log(`  after one card changed ${median(afterChange).toFixed(2)} ms`);
  console.log(`  cached read            ${(median(cached) * 1000).toFixed(2)} µs`);
  console.log(`  rendered size          ${(size / 1024).toFixed(0)} K characters`);
}

const PATTERNS: Record<string, (n: number) => string> = {
  'prose': (n) => 'The **mitochondrion** is the _powerhouse_ of the cell. '.repeat(Math.ceil(n / 55)).slice(0, n),
  'letters': (n) => 'a'.repeat(n),
  '[': (n) => '['.repeat(n),
  '![': (n) => '!['.repeat(n / 2),
  '<': (n) => '<'.repeat(n),
  '<span>': (n) => '<span>'.repeat(n / 6),
  'a*': (n) => 'a*'.repeat(n / 2),
  'emails': (n) => 'a@b.c '.repeat(n / 6),
  'task items': (n) => '- [ ] x\n'.repeat(n / 8),
  'table rows': (n) => '|a|\n|-|\n' + '|x\n'.repeat((n - 8) / 3),
  '$x$': (n) => '$x$ '.repeat(n / 4),
  'matrix &': (n) => `\\begin{matrix}${'&'.repeat(n - 27)}\\end{matrix}`,
  '\\frac': (n) => '\\frac{'.repeat(n / 11) + '1}{2}'.repeat(n / 11),
};

function timeSide(source: string, type: ContentType): number {
  const samples: number[] = [];
  for (let round = 0; round < 3; round++) {
    const t = performance.now();
    renderSide(source, type);
    samples.push(performance.now() - t);
  }
  return median(samples);
}

function scaling(): void {
  console.log('\nHostile input: ms at 4,000 / 16,000 characters (ratio; 4 is linear)');
  const types: ContentType[] = ['text', 'markdown', 'html', 'latex'];
  console.log(`  ${'pattern'.padEnd(12)}${types.map((t) => t.padStart(22)).join('')}`);
  const worst: Record<string, number> = {};
  for (const [name, make] of Object.entries(PATTERNS)) {
    const cells = types.map((type) => {
      const small = timeSide(make(4000), type);
      const large = timeSide(make(16000), type);
      worst[type] = Math.max(worst[type] ?? 0, small);
      return `${small.toFixed(1)} / ${large.toFixed(1)} (${(large / Math.max(small, 0.05)).toFixed(1)})`.padStart(22);
    });
    console.log(`  ${name.padEnd(12)}${cells.join('')}`);
  }
  console.log(`  worst side of 4,000 characters: ${types.map((t) => `${t} ${worst[t].toFixed(1)} ms`).join(', ')}`);
}

async function hostileDeck(): Promise<void> {
  const sides = [PATTERNS['matrix &'](4000), PATTERNS['!['](4000), PATTERNS['\\frac'](4000), PATTERNS['<span>'](4000)];
  const cards: CardDto[] = Array.from({ length: 250 }, (_, i) => ({
    id: `crd_${i}`, order: i, oneSided: false, front: sides[i % 4], back: sides[(i + 2) % 4],
    extras: { frontType: i % 2 === 0 ? 'latex' : 'markdown', backType: i % 2 === 0 ? 'markdown' : 'html' },
  }));
  const t = performance.now();
  const deck = await new RenderedDeckCache().render('dck_hostile', 'v', cards);
  console.log(`\nHostile 250-card deck (4,000-character sides of costly patterns): ${(performance.now() - t).toFixed(0)} ms, ${(deck.length / 1e6).toFixed(1)} M characters`);
}

await realisticDeck();
scaling();
await hostileDeck();
