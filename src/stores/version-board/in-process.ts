// Versions in this process's memory, for one instance on the embedded store (see
// version-board.ts): a deck read whose body is held skips the deck row read (8 µs of SQLite, 25
// to 30 µs with its awaits under load; docs/performance.md). Every write of this process publishes
// once committed; an entry is trusted for VERSION_TTL_SECONDS, as on Redis, so a write made outside
// the process is seen within that bound.
import { performance } from 'node:perf_hooks';
import { VERSION_TTL_SECONDS, type VersionBoard } from './version-board.ts';

/** Entries kept; the oldest go first (a forgotten version only costs a database read). */
const MAX_ENTRIES = 100_000;

export class InProcessVersionBoard implements VersionBoard {
  readonly #versions = new Map<string, { version: string; ms: number; at: number }>();
  readonly #maxEntries: number;

  constructor(maxEntries: number = MAX_ENTRIES) {
    this.#maxEntries = maxEntries;
  }

  keyOf(): null {
    return null;
  }

  parse(): null {
    return null;
  }

  versionOf(id: string): string | null {
    const entry = this.#versions.get(id);
    if (entry === undefined) return null;
    if (performance.now() - entry.at >= VERSION_TTL_SECONDS * 1000) {
      this.#versions.delete(id);
      return null;
    }
    return entry.version;
  }

  publish(id: string, version: string): Promise<void> {
    const ms = Date.parse(version);
    const current = this.#versions.get(id);
    // An older version never replaces a newer one (a read racing a write).
    if (current !== undefined && current.ms > ms) return Promise.resolve();
    this.#versions.delete(id);
    if (this.#versions.size >= this.#maxEntries) this.#versions.delete(this.#versions.keys().next().value as string);
    this.#versions.set(id, { version, ms, at: performance.now() });
    return Promise.resolve();
  }
}
