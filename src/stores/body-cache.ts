// Rendered response bodies, as UTF-8 bytes, kept per resource id and version with the user who
// owns the resource (who may read them is the caller's rule, not the cache's). One per app.
// A writer moves a resource's version in the same transaction as the change, so the bytes held
// for a version are that version's. Measured (docs/performance.md): reading and rendering 250
// cards and encoding ~160 KiB to UTF-8 dominated the deck read.
import { ByteBoundedLru } from '../lru.ts';

/** Bound on the bytes one app keeps: a 250-card deck renders to about 160 KiB. */
export const BODY_CACHE_BYTES = 32 * 1024 * 1024;

export interface HeldBody {
  readonly ownerId: string;
  readonly version: string;
  readonly body: Buffer;
}

export class BodyCache {
  readonly #maxBytes: number;
  readonly #entries: ByteBoundedLru<HeldBody>;

  constructor(maxBytes: number = BODY_CACHE_BYTES) {
    this.#maxBytes = maxBytes;
    this.#entries = new ByteBoundedLru(maxBytes, (entry) => entry.body.length);
  }

  get(id: string, version: string): HeldBody | undefined {
    const entry = this.#entries.peek(id);
    if (entry?.version !== version) return undefined;
    return this.#entries.get(id);
  }

  set(id: string, entry: HeldBody): void {
    // One body never takes more than a quarter of the cache: a few huge decks cannot evict the rest.
    if (entry.body.length > this.#maxBytes / 4) this.#entries.delete(id);
    else this.#entries.set(id, entry);
  }
}
