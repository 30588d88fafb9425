// One process's counters: exact for a single instance. Plain synchronous counters per fixed
// window (the keys carry the window index, so a window's counter is never reset, only dropped once
// its window has passed): rate-limiter-flexible's memory limiters cost 2.8 µs and several promises
// per call where these cost 0.3 µs (docs/performance.md). There are no shared keys in-process, so
// every key a call asks to read is null.
import {
  allowedWith, FAILED_AUTH_SECONDS, NO_VALUES, refusedBy, throttledFor, windowKeys, windowOf,
  type Admission, type RateBucket, type RateLimitStore, type WindowName,
} from './rate-limits.ts';

function nulls(reads: readonly string[]): readonly (string | null)[] {
  return reads.length === 0 ? NO_VALUES : reads.map(() => null);
}

/** Counts per key within one kind of window; counters of windows that have passed are dropped. */
class WindowCounters {
  readonly #window: WindowName;
  readonly #counts = new Map<string, { count: number; index: number }>();
  #latestIndex = -Infinity;

  constructor(window: WindowName) {
    this.#window = window;
  }

  /** The key's count in the window of `nowMs` (0 when nothing was counted). */
  get(key: string): number {
    return this.#counts.get(key)?.count ?? 0;
  }

  increment(key: string, nowMs: number): void {
    const index = windowOf(this.#window, nowMs).index;
    if (index > this.#latestIndex) {
      this.#latestIndex = index;
      for (const [k, entry] of this.#counts) if (entry.index < index) this.#counts.delete(k);
    }
    const entry = this.#counts.get(key);
    if (entry === undefined) this.#counts.set(key, { count: 1, index });
    else entry.count += 1;
  }
}

/**
 * Failed authentications per address, counted over FAILED_AUTH_SECONDS from the first one (as
 * rate-limiter-flexible did), in real time.
 */
class FailureCounters {
  readonly #failures = new Map<string, { count: number; expiresAt: number }>();
  #nextSweep = 0;

  read(address: string, now: number): { count: number; msLeft: number } {
    const entry = this.#failures.get(address);
    if (entry === undefined || entry.expiresAt <= now) return { count: 0, msLeft: 0 };
    return { count: entry.count, msLeft: entry.expiresAt - now };
  }

  record(address: string, now: number): void {
    if (now >= this.#nextSweep) {
      this.#nextSweep = now + FAILED_AUTH_SECONDS * 1000;
      for (const [k, entry] of this.#failures) if (entry.expiresAt <= now) this.#failures.delete(k);
    }
    const entry = this.#failures.get(address);
    if (entry === undefined || entry.expiresAt <= now) this.#failures.set(address, { count: 1, expiresAt: now + FAILED_AUTH_SECONDS * 1000 });
    else entry.count += 1;
  }
}

export class InProcessRateLimits implements RateLimitStore {
  readonly failedAuthPerMinute: number;
  readonly #minute = new WindowCounters('minute');
  readonly #day = new WindowCounters('day');
  readonly #failedAuth = new FailureCounters();

  constructor(options: { failedAuthPerMinute: number }) {
    this.failedAuthPerMinute = options.failedAuthPerMinute;
  }

  /** Synchronous: the counters are in memory. */
  admit(bucket: RateBucket, address: string | null, reads: readonly string[], nowMs: number): Admission {
    const values = nulls(reads);
    if (address !== null) {
      const blocked = this.#blockedFor(address);
      if (blocked > 0) return { throttledSeconds: blocked, decision: null, values };
    }
    const keys = windowKeys(bucket.key, nowMs);
    const limits = bucket.limits;
    const minute = this.#minute.get(keys.minute);
    const day = this.#day.get(keys.day);
    // A refused call is not counted.
    if (minute >= limits.perMinute || day >= limits.perDay) {
      return { throttledSeconds: 0, decision: refusedBy(limits, minute >= limits.perMinute ? 'minute' : 'day', nowMs), values };
    }
    this.#minute.increment(keys.minute, nowMs);
    this.#day.increment(keys.day, nowMs);
    return { throttledSeconds: 0, decision: allowedWith(limits, minute + 1, day + 1, nowMs), values };
  }

  #blockedFor(address: string): number {
    const { count, msLeft } = this.#failedAuth.read(address, Date.now());
    return throttledFor(this.failedAuthPerMinute, count, msLeft);
  }

  failedAuthBlockedFor(address: string): Promise<number> {
    return Promise.resolve(this.#blockedFor(address));
  }

  recordFailedAuth(address: string): Promise<void> {
    this.#failedAuth.record(address, Date.now());
    return Promise.resolve();
  }
}
