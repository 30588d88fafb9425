// Per-token limits over fixed UTC windows (minute, day), and the failed-authentication throttle
// per client address, behind one interface with two stores chosen once at boot (stores.ts):
// in-process counters (rate-limiter-flexible's memory limiters) and Redis (rate-limits-redis.ts,
// one script per call so every instance counts against the same numbers in one round trip).
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

export type WindowName = 'minute' | 'day';

export interface RateDecision {
  allowed: boolean;
  /** The window nearest to exhaustion (or the one that refused). */
  window: WindowName;
  limit: number;
  remaining: number;
  /** Seconds until that window resets (at least 1). */
  resetSeconds: number;
}

export interface RateLimits {
  perMinute: number;
  perDay: number;
  failedAuthPerMinute: number;
}

/**
 * A token call's admission: refused outright while its address is throttled, else the windows'
 * decision; with the value of the shared key the call asked to peek at (null if none or unset).
 */
export type Admission = ({ blockedSeconds: number; decision: null } | { blockedSeconds: 0; decision: RateDecision }) & { peeked: string | null };

export interface RateLimitStore {
  readonly limits: RateLimits;
  /**
   * Checks the address's failed-auth throttle, then counts one call against the token's windows,
   * unless a window is exhausted or the address is throttled: refused calls do not count.
   * `peek` names a shared key (deck-versions.ts) whose value the call will need: on Redis it is
   * read in the same script, so a deck read makes one round trip. In-process there are no shared
   * keys and nothing is peeked.
   */
  admit(address: string, tokenId: string, nowMs: number, peek: string | null): Promise<Admission>;
  /** Seconds to wait if this address is throttled, else 0. */
  failedAuthBlockedFor(address: string): Promise<number>;
  recordFailedAuth(address: string): Promise<void>;
}

export const WINDOW_SECONDS: Record<WindowName, number> = { minute: 60, day: 86_400 };
/** Failed authentications are counted per address over 60 s from the first one. */
export const FAILED_AUTH_SECONDS = 60;

export function windowOf(name: WindowName, nowMs: number): { index: number; resetSeconds: number } {
  const size = WINDOW_SECONDS[name] * 1000;
  const index = Math.floor(nowMs / size);
  return { index, resetSeconds: Math.max(1, Math.ceil(((index + 1) * size - nowMs) / 1000)) };
}

/** Counter keys: the window index is part of the key, so windows align to the UTC minute and day. */
export function windowKeys(tokenId: string, nowMs: number): { minute: string; day: string } {
  return {
    minute: `rl:tok:minute:${tokenId}:${windowOf('minute', nowMs).index}`,
    day: `rl:tok:day:${tokenId}:${windowOf('day', nowMs).index}`,
  };
}

export const failedAuthKey = (address: string) => `rl:authfail:${address}`;

function windowFacts(limits: RateLimits, window: WindowName, nowMs: number) {
  return { window, limit: window === 'minute' ? limits.perMinute : limits.perDay, resetSeconds: windowOf(window, nowMs).resetSeconds };
}

/** A call refused by `window` (exhausted): nothing was counted. */
export function refusedBy(limits: RateLimits, window: WindowName, nowMs: number): RateDecision {
  return { allowed: false, remaining: 0, ...windowFacts(limits, window, nowMs) };
}

/** A call counted in both windows, which now hold these counts. */
export function allowedWith(limits: RateLimits, minuteCount: number, dayCount: number, nowMs: number): RateDecision {
  const minuteLeft = limits.perMinute - minuteCount;
  const dayLeft = limits.perDay - dayCount;
  return minuteLeft <= dayLeft
    ? { allowed: true, remaining: minuteLeft, ...windowFacts(limits, 'minute', nowMs) }
    : { allowed: true, remaining: dayLeft, ...windowFacts(limits, 'day', nowMs) };
}

/** Seconds an address with this many recent failures must wait (0: not throttled). */
export function throttledFor(limits: RateLimits, failures: number, msLeft: number): number {
  if (failures < limits.failedAuthPerMinute) return 0;
  return Math.max(1, Math.ceil((msLeft > 0 ? msLeft : FAILED_AUTH_SECONDS * 1000) / 1000));
}

export function policyHeader(limits: RateLimits): string {
  return `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`;
}

export function rateLimitHeader(decision: RateDecision): string {
  return `"${decision.window}";r=${decision.remaining};t=${decision.resetSeconds}`;
}

async function consumeOne(limiter: RateLimiterMemory, key: string): Promise<{ ok: boolean; consumed: number }> {
  try {
    const res = await limiter.consume(key, 1);
    return { ok: true, consumed: res.consumedPoints };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { ok: false, consumed: error.consumedPoints };
    throw error;
  }
}

/** One process's counters: exact for a single instance. */
export class InProcessRateLimits implements RateLimitStore {
  readonly limits: RateLimits;
  readonly #minute: RateLimiterMemory;
  readonly #day: RateLimiterMemory;
  readonly #failedAuth: RateLimiterMemory;

  constructor(limits: RateLimits) {
    this.limits = limits;
    this.#minute = new RateLimiterMemory({ points: limits.perMinute, duration: WINDOW_SECONDS.minute });
    this.#day = new RateLimiterMemory({ points: limits.perDay, duration: WINDOW_SECONDS.day });
    this.#failedAuth = new RateLimiterMemory({ points: limits.failedAuthPerMinute, duration: FAILED_AUTH_SECONDS });
  }

  async admit(address: string, tokenId: string, nowMs: number): Promise<Admission> {
    const blocked = await this.failedAuthBlockedFor(address);
    if (blocked > 0) return { blockedSeconds: blocked, decision: null, peeked: null };
    const keys = windowKeys(tokenId, nowMs);
    // Each limiter counts atomically; a call refused by either window is taken back from both.
    const [m, d] = await Promise.all([consumeOne(this.#minute, keys.minute), consumeOne(this.#day, keys.day)]);
    if (!m.ok || !d.ok) {
      await Promise.all([this.#minute.reward(keys.minute, 1), this.#day.reward(keys.day, 1)]);
      return { blockedSeconds: 0, decision: refusedBy(this.limits, m.ok ? 'day' : 'minute', nowMs), peeked: null };
    }
    return { blockedSeconds: 0, decision: allowedWith(this.limits, m.consumed, d.consumed, nowMs), peeked: null };
  }

  async failedAuthBlockedFor(address: string): Promise<number> {
    const res = await this.#failedAuth.get(address);
    return res === null ? 0 : throttledFor(this.limits, res.consumedPoints, res.msBeforeNext);
  }

  async recordFailedAuth(address: string): Promise<void> {
    await consumeOne(this.#failedAuth, address);
  }
}
