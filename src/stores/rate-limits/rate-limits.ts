// Fixed-window rate limits (UTC minute and UTC day) per bucket, and the failed-authentication
// throttle per client address, behind one interface with two implementations chosen once at boot
// (../shared-stores.ts): in-process counters (in-process.ts) and Redis (redis.ts, one script per
// call so every instance counts against the same numbers in one round trip).
//
// The store knows buckets and shared keys, never what they stand for: the policy names the bucket
// (a token's, an OAuth grant's, a signed-in user's card writes) and the caller names any shared keys
// to read in the same round trip (a deck's published version).

export type WindowName = 'minute' | 'day';

export interface WindowLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/**
 * Where a call is counted: the bucket's key, `<kind>:<id>` (`tok:tok_...`, `grant:...`,
 * `cards:usr_...`), and the limits of its windows.
 */
export interface RateBucket {
  readonly key: string;
  readonly limits: WindowLimits;
}

export interface RateDecision {
  allowed: boolean;
  /** The window nearest to exhaustion (or the one that refused). */
  window: WindowName;
  limit: number;
  remaining: number;
  /** Seconds until that window resets (at least 1). */
  resetSeconds: number;
}

/**
 * One call's admission: refused outright while its address is throttled, else the windows'
 * decision; with the values of the shared keys the call asked to read, in the order it named them
 * (null for a key that is unset, and for every key on a store that shares none).
 */
export type Admission = (
  | { throttledSeconds: number; decision: null }
  | { throttledSeconds: 0; decision: RateDecision }
) & { values: readonly (string | null)[] };

export interface RateLimitStore {
  /** Failed authentications an address may make per minute before it is throttled. */
  readonly failedAuthPerMinute: number;
  /**
   * Checks the address's failed-auth throttle (unless `address` is null), then counts one call in
   * both windows of the bucket, unless a window is exhausted or the address is throttled: refused
   * calls do not count. `reads` are shared keys whose values the caller needs: on Redis they are
   * read in the same script, so the call makes one round trip. The in-process store answers
   * without a promise.
   */
  admit(bucket: RateBucket, address: string | null, reads: readonly string[], nowMs: number): Admission | Promise<Admission>;
  /** Seconds to wait if this address is throttled, else 0. */
  failedAuthBlockedFor(address: string): Promise<number>;
  recordFailedAuth(address: string): Promise<void>;
  /**
   * Counts one attempt against every counter in one atomic step, unless one of them already holds
   * its limit: then nothing is counted and the seconds until the fullest such counter expires come
   * back (0: counted). Concurrent claims on one instance or many are decided one after the other,
   * so at most `limit` attempts per counter get through however many arrive at once. A counter
   * lives `seconds` from its first attempt.
   */
  claimAttempt(counters: readonly AttemptCounter[]): Promise<number>;
  /** Takes back one attempt that claimAttempt counted (it succeeded, or was never made). */
  releaseAttempt(counters: readonly AttemptCounter[]): Promise<void>;
}

/** A counter of attempts (a password sign-in per account, per address): its key and limit. */
export interface AttemptCounter {
  /** `<kind>:<id>`: `signin-account:<email>`, `signin-address:<ip>`, `signup-address:<ip>`. */
  readonly key: string;
  readonly limit: number;
  /** How long the counter lives from its first attempt. */
  readonly seconds: number;
}

export const WINDOW_SECONDS: Record<WindowName, number> = { minute: 60, day: 86_400 };
/** Failed authentications are counted per address over 60 s from the first one. */
export const FAILED_AUTH_SECONDS = 60;

export const NO_VALUES: readonly (string | null)[] = Object.freeze([]);

export function windowOf(name: WindowName, nowMs: number): { index: number; resetSeconds: number } {
  const size = WINDOW_SECONDS[name] * 1000;
  const index = windowIndex(name, nowMs);
  return { index, resetSeconds: Math.max(1, Math.ceil(((index + 1) * size - nowMs) / 1000)) };
}

/** The index of the window holding `nowMs` (the UTC minute or day since the epoch). */
export function windowIndex(name: WindowName, nowMs: number): number {
  return Math.floor(nowMs / (WINDOW_SECONDS[name] * 1000));
}

/**
 * Counter keys, `rl:<kind>:<window>:<id>:<window index>`: the index is part of the key, so windows
 * align to the UTC minute and day (operators' key scans rely on this layout).
 */
export function windowKeys(bucketKey: string, nowMs: number): { minute: string; day: string } {
  const colon = bucketKey.indexOf(':');
  const kind = colon < 0 ? bucketKey : bucketKey.slice(0, colon);
  const id = colon < 0 ? '' : bucketKey.slice(colon + 1);
  return {
    minute: `rl:${kind}:minute:${id}:${windowOf('minute', nowMs).index}`,
    day: `rl:${kind}:day:${id}:${windowOf('day', nowMs).index}`,
  };
}

export const failedAuthKey = (address: string): string => `rl:authfail:${address}`;
export const attemptKey = (key: string): string => `rl:attempts:${key}`;

function windowFacts(limits: WindowLimits, window: WindowName, nowMs: number) {
  return { window, limit: window === 'minute' ? limits.perMinute : limits.perDay, resetSeconds: windowOf(window, nowMs).resetSeconds };
}

/**
 * A call refused because a window is exhausted (the day's count given): nothing was counted. A spent
 * day names the day even when the minute is spent too, since the bucket only admits calls again
 * once the day resets: Retry-After is then never a wait that ends in another 429.
 */
export function refusedBy(limits: WindowLimits, dayCount: number, nowMs: number): RateDecision {
  const window: WindowName = dayCount >= limits.perDay ? 'day' : 'minute';
  return { allowed: false, remaining: 0, ...windowFacts(limits, window, nowMs) };
}

/** A call counted in both windows, which now hold these counts. */
export function allowedWith(limits: WindowLimits, minuteCount: number, dayCount: number, nowMs: number): RateDecision {
  const minuteLeft = limits.perMinute - minuteCount;
  const dayLeft = limits.perDay - dayCount;
  return minuteLeft <= dayLeft
    ? { allowed: true, remaining: minuteLeft, ...windowFacts(limits, 'minute', nowMs) }
    : { allowed: true, remaining: dayLeft, ...windowFacts(limits, 'day', nowMs) };
}

/** Seconds an address with this many recent failures must wait (0: not throttled). */
export function throttledFor(failedAuthPerMinute: number, failures: number, msLeft: number): number {
  if (failures < failedAuthPerMinute) return 0;
  return Math.max(1, Math.ceil((msLeft > 0 ? msLeft : FAILED_AUTH_SECONDS * 1000) / 1000));
}
