// One process's counters: exact for a single instance. Plain synchronous counters per fixed
// window (each count carries its window's index, so a window's counter is never reset, only
// dropped once its window has passed): rate-limiter-flexible's memory limiters cost 2.8 µs and several promises
// per call where these cost 0.3 µs (docs/performance.md). There are no shared keys in-process, so
// every key a call asks to read is null.
import {
  allowedWith, FAILED_AUTH_SECONDS, NO_VALUES, refusedBy, throttledFor, windowIndex,
  type Admission, type AttemptCounter, type RateBucket, type RateLimitStore,
} from './rate-limits.ts';

function nulls(reads: readonly string[]): readonly (string | null)[] {
  return reads.length === 0 ? NO_VALUES : reads.map(() => null);
}

/**
 * Counts per bucket and window index, as the Redis store's keys (`windowKeys`) count them, without
 * building a key per call. A window's counts are dropped once a later window starts; a count made
 * in an earlier window (the clock went back) stays apart until then, as its own key would.
 */
class WindowCounters {
  readonly #windows = new Map<number, Map<string, number>>();
  #latestIndex = -Infinity;

  /** The bucket's count in window `index` (0 when nothing was counted). */
  get(bucketKey: string, index: number): number {
    return this.#windows.get(index)?.get(bucketKey) ?? 0;
  }

  increment(bucketKey: string, index: number): void {
    if (index > this.#latestIndex) {
      this.#latestIndex = index;
      for (const past of this.#windows.keys()) if (past < index) this.#windows.delete(past);
    }
    let counts = this.#windows.get(index);
    if (counts === undefined) this.#windows.set(index, counts = new Map<string, number>());
    counts.set(bucketKey, (counts.get(bucketKey) ?? 0) + 1);
  }
}

const NO_FAILURES = Object.freeze({ count: 0, msLeft: 0 });

/**
 * Counts per key over a lifetime from the first one (as rate-limiter-flexible did), in real time:
 * failed authentications per address, and password attempts per account and per address.
 */
class ExpiringCounters {
  readonly #counts = new Map<string, { count: number; expiresAt: number }>();
  #nextSweep = 0;

  read(key: string, now: number): { count: number; msLeft: number } {
    const entry = this.#counts.get(key);
    if (entry === undefined || entry.expiresAt <= now) return NO_FAILURES;
    return { count: entry.count, msLeft: entry.expiresAt - now };
  }

  increment(key: string, now: number, seconds: number): void {
    if (now >= this.#nextSweep) {
      this.#nextSweep = now + FAILED_AUTH_SECONDS * 1000;
      for (const [k, entry] of this.#counts) if (entry.expiresAt <= now) this.#counts.delete(k);
    }
    const entry = this.#counts.get(key);
    if (entry === undefined || entry.expiresAt <= now) this.#counts.set(key, { count: 1, expiresAt: now + seconds * 1000 });
    else entry.count += 1;
  }

  decrement(key: string, now: number): void {
    const entry = this.#counts.get(key);
    if (entry === undefined || entry.expiresAt <= now) return;
    entry.count -= 1;
    if (entry.count <= 0) this.#counts.delete(key);
  }
}

export class InProcessRateLimits implements RateLimitStore {
  readonly failedAuthPerMinute: number;
  readonly #minute = new WindowCounters();
  readonly #day = new WindowCounters();
  readonly #failedAuth = new ExpiringCounters();
  readonly #attempts = new ExpiringCounters();

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
    const minuteIndex = windowIndex('minute', nowMs);
    const dayIndex = windowIndex('day', nowMs);
    const limits = bucket.limits;
    const minute = this.#minute.get(bucket.key, minuteIndex);
    const day = this.#day.get(bucket.key, dayIndex);
    // A refused call is not counted.
    if (minute >= limits.perMinute || day >= limits.perDay) {
      return { throttledSeconds: 0, decision: refusedBy(limits, day, nowMs), values };
    }
    this.#minute.increment(bucket.key, minuteIndex);
    this.#day.increment(bucket.key, dayIndex);
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
    this.#failedAuth.increment(address, Date.now(), FAILED_AUTH_SECONDS);
    return Promise.resolve();
  }

  /** Checked and counted in one synchronous step: no other claim runs in between. */
  claimAttempt(counters: readonly AttemptCounter[]): Promise<number> {
    const now = Date.now();
    let wait = 0;
    for (const { key, limit } of counters) {
      const { count, msLeft } = this.#attempts.read(key, now);
      if (count >= limit) wait = Math.max(wait, Math.max(1, Math.ceil(msLeft / 1000)));
    }
    if (wait === 0) for (const { key, seconds } of counters) this.#attempts.increment(key, now, seconds);
    return Promise.resolve(wait);
  }

  releaseAttempt(counters: readonly AttemptCounter[]): Promise<void> {
    const now = Date.now();
    for (const { key } of counters) this.#attempts.decrement(key, now);
    return Promise.resolve();
  }
}
