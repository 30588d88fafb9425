// Rendered decks, kept per deck and version so a deck is rendered once per change, not per view.
// Pure: the pages hand in the deck's id, version and cards; nothing here reads a store.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CardDto } from '../decks/decks.schemas.ts';
import { ByteBoundedLru } from '../../lru.ts';
import { renderCard, renderedCardLength, type RenderedCard } from './card-renderer.ts';
import type { MathBudget } from './latex-side.ts';

/** Default bound on what one process keeps: a typical 250-card deck renders to well under 1 MB. */
export const RENDERED_DECK_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Once a deck's rendered HTML passes this many characters, its remaining cards are rendered as
 * plain text. Every deck then fits the cache (worst case about 25 M characters), and the work one
 * hostile deck can cause per change is bounded; real decks stay far below it.
 */
export const MAX_RENDERED_DECK_LENGTH = 8_000_000;

/**
 * KaTeX work one deck rendering may cause, in `mathCost` units (a character of formula source, ten
 * for an array cell or row): about 400 per card of a full deck, where a formula card typically
 * needs under 100. KaTeX is the costliest part of rendering, so this bounds a deck's KaTeX work
 * to about a second however its cards are written. Formulas past it are shown as written.
 */
export const MAX_DECK_MATH_LENGTH = 100_000;

/** Rendering yields to the event loop after this long, so a large deck never stalls other requests. */
const SLICE_MS = 10;

export interface RenderedDeck {
  deckId: string;
  version: string;
  cards: readonly RenderedCard[];
  /** Characters held (rendered HTML plus the content keys that let the next version reuse it). */
  length: number;
}

interface CachedCard {
  key: string;
  textOnly: boolean;
  /** What it took from the deck's math budget. */
  mathUsed: number;
  /** Whether any of its formulas was refused for want of budget. */
  mathRefused: boolean;
  rendered: RenderedCard;
}

interface CacheEntry {
  deck: RenderedDeck;
  cards: readonly CachedCard[];
}

/** What a card's rendering depends on: everything but its id and position. */
function contentKey(card: CardDto): string {
  return JSON.stringify([card.front, card.back, card.oneSided, card.frontMedia ?? null, card.backMedia ?? null, card.extras ?? null]);
}

/**
 * Renders a deck's cards in order, as a fresh rendering of the whole deck would. A card whose
 * content is unchanged since `previous` (the deck's last rendered version) is reused when it
 * would render the same: same text-only state, and all its formulas fit the math budget left.
 * Past `limits.deckLength` characters of HTML the remaining cards are rendered as text. Yields to
 * the event loop every few milliseconds; the result does not depend on timing.
 */
async function renderCards(cards: readonly CardDto[], previous: readonly CachedCard[], limits: { deckLength: number; math: number }): Promise<CachedCard[]> {
  const reusable = new Map<string, CachedCard>();
  for (const cached of previous) if (!cached.mathRefused) reusable.set(`${cached.textOnly ? 't' : 'r'}${cached.key}`, cached);
  const budget: MathBudget = { remaining: limits.math, refused: 0 };
  const out: CachedCard[] = [];
  let length = 0;
  let sliceStart = performance.now();
  for (const card of cards) {
    const textOnly = length > limits.deckLength;
    const key = contentKey(card);
    const reused = reusable.get(`${textOnly ? 't' : 'r'}${key}`);
    let cached: CachedCard;
    if (reused !== undefined && reused.mathUsed <= budget.remaining) {
      budget.remaining -= reused.mathUsed;
      cached = { ...reused, rendered: { ...reused.rendered, id: card.id, order: card.order } };
    } else {
      const [remaining, refused] = [budget.remaining, budget.refused];
      const rendered = renderCard(card, { textOnly, mathBudget: budget });
      cached = { key, textOnly, mathUsed: remaining - budget.remaining, mathRefused: budget.refused > refused, rendered };
    }
    out.push(cached);
    length += renderedCardLength(cached.rendered);
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  return out;
}

function entryLength(entry: CacheEntry): number {
  return entry.deck.length;
}

export interface RenderedDeckCacheOptions {
  /** Bound on the characters kept (see `RenderedDeck.length`). */
  maxBytes?: number;
  /** Rendered characters per deck before its remaining cards are rendered as text. */
  maxDeckLength?: number;
  /** KaTeX work per deck, in `mathCost` units. */
  maxDeckMathLength?: number;
}

export class RenderedDeckCache {
  // One entry per deck: its latest rendered version (older versions are never asked for again).
  readonly #entries: ByteBoundedLru<CacheEntry>;
  readonly #limits: { deckLength: number; math: number };
  readonly #inFlight = new Map<string, Promise<RenderedDeck>>();

  constructor(options: RenderedDeckCacheOptions = {}) {
    this.#entries = new ByteBoundedLru(options.maxBytes ?? RENDERED_DECK_CACHE_BYTES, entryLength);
    this.#limits = { deckLength: options.maxDeckLength ?? MAX_RENDERED_DECK_LENGTH, math: options.maxDeckMathLength ?? MAX_DECK_MATH_LENGTH };
  }

  /** The cached rendering of this version of the deck, if there is one. */
  get(deckId: string, version: string): RenderedDeck | undefined {
    const entry = this.#entries.get(deckId);
    return entry !== undefined && entry.deck.version === version ? entry.deck : undefined;
  }

  /**
   * This version of the deck, rendered: from the cache, or rendered now (reusing the cards that did
   * not change since the cached version) and cached. Concurrent calls for the same version share
   * one rendering.
   */
  render(deckId: string, version: string, cards: readonly CardDto[]): Promise<RenderedDeck> {
    const cached = this.get(deckId, version);
    if (cached !== undefined) return Promise.resolve(cached);
    const flightKey = `${deckId}\n${version}`;
    const running = this.#inFlight.get(flightKey);
    if (running !== undefined) return running;
    const rendering = this.#renderAndStore(deckId, version, cards).finally(() => this.#inFlight.delete(flightKey));
    this.#inFlight.set(flightKey, rendering);
    return rendering;
  }

  async #renderAndStore(deckId: string, version: string, cards: readonly CardDto[]): Promise<RenderedDeck> {
    const previous = this.#entries.peek(deckId)?.cards ?? [];
    const rendered = await renderCards(cards, previous, this.#limits);
    let length = 0;
    for (const card of rendered) length += card.key.length + renderedCardLength(card.rendered);
    const deck: RenderedDeck = { deckId, version, cards: rendered.map((card) => card.rendered), length };
    // A slower rendering of an older version must not replace a newer one already stored.
    const current = this.#entries.peek(deckId);
    if (current === undefined || current.deck.version <= version) this.#entries.set(deckId, { deck, cards: rendered });
    return deck;
  }
}
