// Rendered response bodies, as UTF-8 bytes, kept per resource id and version with the user who
// owns the resource (who may read them is the caller's rule, not the cache's). One per app.
// A writer moves a resource's version in the same transaction as the change, so the bytes held
// for a version are that version's. Measured (docs/performance.md): reading and rendering 250
// cards and encoding ~160 KiB to UTF-8 dominated the deck read.

/** Bound on the bytes one app keeps: a 250-card deck renders to about 160 KiB. */
export const BODY_CACHE_BYTES = 32 * 1024 * 1024;

export interface HeldBody {
  readonly ownerId: string;
  readonly version: string;
  readonly body: Buffer;
}

export class BodyCache {
  readonly #maxBytes: number;
  readonly #entries = new Map<string, HeldBody>();
  #bytes = 0;

  constructor(maxBytes: number = BODY_CACHE_BYTES) {
    this.#maxBytes = maxBytes;
  }

  get(id: string, version: string): HeldBody | undefined {
    const entry = this.#entries.get(id);
    if (entry?.version !== version) return undefined;
    // Least recently used goes first: re-insert on every hit.
    this.#entries.delete(id);
    this.#entries.set(id, entry);
    return entry;
  }

  set(id: string, entry: HeldBody): void {
    this.#drop(id);
    if (entry.body.length > this.#maxBytes / 4) return;
    this.#entries.set(id, entry);
    this.#bytes += entry.body.length;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#drop(oldest);
    }
  }

  #drop(id: string): void {
    const entry = this.#entries.get(id);
    if (entry === undefined) return;
    this.#entries.delete(id);
    this.#bytes -= entry.body.length;
  }
}
