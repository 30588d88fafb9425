// Rendered GET /decks/{deckId} bodies, as UTF-8 bytes, keyed by deck id and version, with the
// deck they render (its owner decides who may read them).
// Every write to a deck, its fields or its cards, changes the deck's version in the same
// transaction (updateDeckIfUnchanged, and only when something changed), so the bytes stored for a
// version are that version's deck. Measured (docs/performance.md): reading and rendering 250
// cards and encoding ~160 KiB to UTF-8 dominated the route.

import type { DeckRecord } from './decks.repository.ts';

/** Bound on the bytes one app keeps: a 250-card deck renders to about 160 KiB. */
export const DECK_BODY_CACHE_BYTES = 32 * 1024 * 1024;

export interface RenderedDeck {
  deck: DeckRecord;
  body: Buffer;
}

export class DeckBodyCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, RenderedDeck>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(deckId: string, version: string): RenderedDeck | undefined {
    const entry = this.#entries.get(deckId);
    if (entry === undefined || entry.deck.updatedAt !== version) return undefined;
    // Least recently used goes first: re-insert on every hit.
    this.#entries.delete(deckId);
    this.#entries.set(deckId, entry);
    return entry;
  }

  set(deck: DeckRecord, body: Buffer): void {
    this.#drop(deck.id);
    if (body.length > this.#maxBytes / 4) return;
    this.#entries.set(deck.id, { deck, body });
    this.#bytes += body.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(oldest);
    }
  }

  #drop(deckId: string): void {
    const entry = this.#entries.get(deckId);
    if (entry === undefined) return;
    this.#entries.delete(deckId);
    this.#bytes -= entry.body.length;
  }
}
