// Rows of the database kept for a moment, bounded in number: the token verifiers' rows (every call
// authenticates; on PostgreSQL a lookup is a network round trip). A row not found is never kept,
// so guessing cannot fill the cache. One per app (in its ServiceContext or its verifier), dropped
// with it.
import { performance } from 'node:perf_hooks';

export class RecentRows<E> {
  readonly #entries = new Map<string, { readAt: number; entry: E }>();
  readonly #keepMs: number;
  readonly #maxEntries: number;

  constructor(keepMs: number, maxEntries = 10_000) {
    this.#keepMs = keepMs;
    this.#maxEntries = maxEntries;
  }

  /** The entry of `key` if it was read less than keepMs ago: no I/O, no promise. */
  fresh(key: string): E | undefined {
    const hit = this.#entries.get(key);
    return hit !== undefined && performance.now() - hit.readAt < this.#keepMs ? hit.entry : undefined;
  }

  /** The entry of `key`, read by `read` at most every keepMs; null (nothing found) is not kept. */
  async get(key: string, read: (key: string) => Promise<E | null>): Promise<E | null> {
    const hit = this.fresh(key);
    if (hit !== undefined) return hit;
    const readAt = performance.now();
    const entry = await read(key);
    this.#entries.delete(key);
    if (entry === null) return null;
    if (this.#entries.size >= this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
    this.#entries.set(key, { readAt, entry });
    return entry;
  }

  /** Drops the entry of `key` (a token this instance revoked is refused at once). */
  forget(key: string): void {
    this.#entries.delete(key);
  }
}
