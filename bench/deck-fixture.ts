// A realistic 250-card import body, the same bytes every run: fronts near the spec's ~80-char
// authoring target, backs near ~300 chars of markdown, and extras on most cards.

const WORDS = (
  'the of a to in is that for it as with was on be by this are from at or an which have not but ' +
  'algorithm protein market theorem enzyme vector gradient kernel membrane equilibrium catalyst ' +
  'derivative integral matrix entropy latency throughput cache mutation isotope velocity momentum ' +
  'photosynthesis mitochondria covalent ionic polymer lattice inflation elasticity contract treaty ' +
  'sonnet metaphor syntax morphology phoneme invariant recursion pointer closure monad transaction'
).split(' ');

const SUBJECTS = ['Biology', 'Chemistry', 'Physics', 'Economics', 'Computer science', 'Mathematics', 'Linguistics', 'History'];
const TOPICS = ['Foundations', 'Cell biology', 'Thermodynamics', 'Data structures', 'Linear algebra', 'Markets', 'Phonology'];
const TAGS = ['exam', 'core', 'week-3', 'week-7', 'definitions', 'tricky', 'review', 'lab'];
const CARD_TYPES = ['basic', 'definition', 'explanation', 'comparison', 'procedure', 'pitfall', 'code-behavior'] as const;
const DIFFICULTIES = ['easy', 'medium', 'hard'] as const;

/** Mulberry32: a tiny seeded PRNG, so the fixture is identical on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sentence(rand: () => number, chars: number): string {
  const words: string[] = [];
  let length = 0;
  while (length < chars) {
    const word = WORDS[Math.floor(rand() * WORDS.length)];
    words.push(word);
    length += word.length + 1;
  }
  const text = words.join(' ');
  return text[0].toUpperCase() + text.slice(1);
}

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)];
}

function back(rand: () => number, i: number): string {
  switch (i % 4) {
    case 0:
      return `${sentence(rand, 120)}. **${sentence(rand, 20)}** ${sentence(rand, 140)}.`;
    case 1:
      return `${sentence(rand, 90)}:\n\n- ${sentence(rand, 50)}\n- ${sentence(rand, 50)}\n- ${sentence(rand, 50)}\n\n${sentence(rand, 40)}.`;
    case 2:
      return `${sentence(rand, 110)}, where $E = mc^2$ and $p = mv$. ${sentence(rand, 150)}.`;
    default:
      return `${sentence(rand, 100)}.\n\n\`\`\`js\nconst total = items.reduce((a, b) => a + b, 0);\n\`\`\`\n\n${sentence(rand, 120)}.`;
  }
}

export interface FixtureCard {
  front: string;
  back: string;
  extras?: Record<string, unknown>;
}

export interface FixtureDeck {
  deck: { title: string; description: string; lang: string; visibility: string; tags: string[] };
  cards: FixtureCard[];
}

export function benchDeck(cards = 250, seed = 42): FixtureDeck {
  const rand = prng(seed);
  return {
    deck: {
      title: 'Benchmark deck: a semester of mixed subjects',
      description: sentence(rand, 400),
      lang: 'en',
      visibility: 'private',
      tags: ['bench', 'mixed', 'semester'],
    },
    cards: Array.from({ length: cards }, (_, i) => {
      const card: FixtureCard = { front: `${sentence(rand, 76)}?`, back: back(rand, i) };
      // Most cards carry extras, as an assistant-generated deck does; some carry only a type.
      if (i % 5 !== 4) {
        card.extras = {
          cardType: pick(rand, CARD_TYPES),
          subject: pick(rand, SUBJECTS),
          topic: pick(rand, TOPICS),
          difficulty: pick(rand, DIFFICULTIES),
          tags: [pick(rand, TAGS), pick(rand, TAGS)].filter((t, k, all) => all.indexOf(t) === k),
          ...(i % 3 === 0 ? { info: sentence(rand, 160) } : {}),
        };
      } else {
        card.extras = { cardType: 'basic' };
      }
      return card;
    }),
  };
}

/** A deck summary row's fields for the bulk-seeded list stores (no cards: the list never reads them). */
export function listDeckFields(i: number): { title: string; description: string; tags: string[]; cardCount: number } {
  const rand = prng(1000 + i);
  return {
    title: `${pick(rand, SUBJECTS)}: ${sentence(rand, 40)}`,
    description: sentence(rand, 160),
    tags: [pick(rand, TAGS), pick(rand, TAGS)].filter((t, k, all) => all.indexOf(t) === k),
    cardCount: Math.floor(rand() * 251),
  };
}
