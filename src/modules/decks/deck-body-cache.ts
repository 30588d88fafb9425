// Rendered GET /decks/{deckId} bodies, as UTF-8 bytes, keyed by deck id and version.
// Every write to a deck, its fields or its cards, changes the deck's version in the same
// transaction (updateDeckIfUnchanged, and only when something changed), so the bytes stored for a
// version are that version's deck. Measured (docs/performance.md): reading and rendering 250
// cards and encoding ~160 KiB to UTF-8 dominated the route.

/** Bound on the bytes one app keeps: a 250-card deck renders to about 160 KiB. */
export const DECK_BODY_CACHE_BYTES = 32 * 1024 * 1024;

interface Entry {
  version: string;
  body: Buffer;
}

export class DeckBodyCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get(deckId: string, version: string): Buffer | undefined {
    const entry = this.#entries.get(deckId);
    if (entry === undefined || entry.version !== version) return undefined;
    // Least recently used goes first: re-insert on every hit.
    this.#entries.delete(deckId);
    this.#entries.set(deckId, entry);
    return entry.body;
  }

  set(deckId: string, version: string, body: Buffer): void {
    this.#drop(deckId);
    if (body.length > this.#maxBytes / 4) return;
    this.#entries.set(deckId, { version, body });
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
