/**
 * A least-recently-used map bounded by the total size of its values (in whatever unit `sizeOf`
 * counts). Inserting past the bound evicts the least recently used entries; a value larger than
 * the whole bound is not kept.
 */
export class ByteBoundedLru<V> {
  readonly #maxBytes: number;
  readonly #sizeOf: (value: V) => number;
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  readonly #entries = new Map<string, { value: V; bytes: number }>();
  #bytes = 0;

  constructor(maxBytes: number, sizeOf: (value: V) => number) {
    if (!(maxBytes > 0)) throw new RangeError('maxBytes must be positive');
    this.#maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as just used. */
  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    return entry.value;
  }

  /** The value, without marking it used. */
  peek(key: string): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** Stores the value (replacing any under the key); false when it alone exceeds the bound. */
  set(key: string, value: V): boolean {
    this.delete(key);
    const bytes = this.#sizeOf(value);
    if (bytes > this.#maxBytes) return false;
    this.#entries.set(key, { value, bytes });
    this.#bytes += bytes;
    for (const oldest of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) break;
      this.delete(oldest);
    }
    return true;
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
