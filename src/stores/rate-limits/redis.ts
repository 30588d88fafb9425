// Rate limits in Redis, shared by every instance. One script per call does what
// rate-limiter-flexible needed four commands for (the failed-auth read, GET and PTTL, and one
// counting script per window), and reads the shared keys the caller names (a deck's published
// version) in the same round trip. Measured, each command cost a deck read more than the Redis work
// it stood for (docs/performance.md). Scripts run atomically, so counts are exact across instances.
import type { Redis } from 'ioredis';
import {
  allowedWith, attemptKey, failedAuthKey, FAILED_AUTH_SECONDS, NO_VALUES, refusedBy, throttledFor, WINDOW_SECONDS, windowKeys,
  type Admission, type AttemptCounter, type RateBucket, type RateLimitStore,
} from './rate-limits.ts';

// KEYS: the address's failed-auth counter, the bucket's minute and day counters, then the keys to
// read. ARGV: the failed-auth limit (0: no address to check), the minute and day limits, the minute
// and day counters' lifetimes.
// Returns {1, failures, ms left, values...} while the address is throttled; {2, minute, day,
// values...} when a window is exhausted (nothing is counted); else {0, minute, day, values...}
// after counting the call in both windows. A value is false (nil) when its key is unset.
const ADMIT = `
local values = {}
for i = 4, #KEYS do values[i - 3] = redis.call('GET', KEYS[i]) end
local failedLimit = tonumber(ARGV[1])
if failedLimit > 0 then
  local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
  if failures >= failedLimit then
    return {1, failures, redis.call('PTTL', KEYS[1]), unpack(values)}
  end
end
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local d = tonumber(redis.call('GET', KEYS[3]) or '0')
if m >= tonumber(ARGV[2]) or d >= tonumber(ARGV[3]) then
  return {2, m, d, unpack(values)}
end
m = redis.call('INCR', KEYS[2])
if m == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
d = redis.call('INCR', KEYS[3])
if d == 1 then redis.call('EXPIRE', KEYS[3], ARGV[5]) end
return {0, m, d, unpack(values)}
`;

// KEYS: the address's failed-auth counter. ARGV: its lifetime, counted from the first failure.
const RECORD_FAILURE = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return n
`;

// KEYS: the address's failed-auth counter. Returns {failures, ms left}.
const READ_FAILURES = `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('PTTL', KEYS[1])}
`;

// KEYS: the attempt counters. ARGV: each one's limit, then each one's lifetime in seconds.
// Returns 0 after counting one attempt in every counter, or, when one already holds its limit,
// the most milliseconds any such counter has left (nothing is counted). One script, so concurrent
// claims from every instance are decided one after the other.
const CLAIM_ATTEMPT = `
local n = #KEYS
local wait = 0
for i = 1, n do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[i]) then
    local left = redis.call('PTTL', KEYS[i])
    if left < 1 then left = 1 end
    if left > wait then wait = left end
  end
end
if wait > 0 then return wait end
for i = 1, n do
  if redis.call('INCR', KEYS[i]) == 1 then redis.call('EXPIRE', KEYS[i], ARGV[n + i]) end
end
return 0
`;

// KEYS: the attempt counters. Takes one attempt back from each that still holds one (its
// lifetime is kept; a counter that expired in between stays gone).
const RELEASE_ATTEMPT = `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') > 0 then redis.call('DECR', KEYS[i]) end
end
return 0
`;

type AdmitReply = [number, number, number, ...(string | null)[]];

interface ScriptedRedis {
  /** Declared without a key count: the first argument is the number of keys. */
  flashdeckAdmit(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<AdmitReply>;
  flashdeckRecordFailure(key: string, lifetime: number): Promise<number>;
  flashdeckReadFailures(key: string): Promise<[number, number]>;
  flashdeckClaimAttempt(keyCount: number, ...keysThenArgs: (string | number)[]): Promise<number>;
  flashdeckReleaseAttempt(keyCount: number, ...keys: string[]): Promise<number>;
}

export class RedisRateLimits implements RateLimitStore {
  readonly failedAuthPerMinute: number;
  readonly #client: ScriptedRedis;
  readonly #namespace: string;

  constructor(client: Redis, namespace: string, options: { failedAuthPerMinute: number }) {
    this.failedAuthPerMinute = options.failedAuthPerMinute;
    this.#namespace = namespace;
    // ioredis sends each as EVALSHA, loading the script again if the server has lost it.
    client.defineCommand('flashdeckAdmit', { lua: ADMIT });
    client.defineCommand('flashdeckRecordFailure', { numberOfKeys: 1, lua: RECORD_FAILURE });
    client.defineCommand('flashdeckReadFailures', { numberOfKeys: 1, lua: READ_FAILURES });
    client.defineCommand('flashdeckClaimAttempt', { lua: CLAIM_ATTEMPT });
    client.defineCommand('flashdeckReleaseAttempt', { lua: RELEASE_ATTEMPT });
    this.#client = client as unknown as ScriptedRedis;
  }

  async admit(bucket: RateBucket, address: string | null, reads: readonly string[], nowMs: number): Promise<Admission> {
    const ns = this.#namespace;
    const keys = windowKeys(bucket.key, nowMs);
    const limits = bucket.limits;
    const counters = [
      // A script declares every key it touches; without an address the first is not read.
      ns + (address === null ? keys.minute : failedAuthKey(address)), ns + keys.minute, ns + keys.day,
    ];
    for (const key of reads) counters.push(ns + key);
    const reply = await this.#client.flashdeckAdmit(
      counters.length, ...counters,
      address === null ? 0 : this.failedAuthPerMinute, limits.perMinute, limits.perDay, WINDOW_SECONDS.minute, WINDOW_SECONDS.day,
    );
    const [outcome, a, b] = reply;
    const values = reply.length > 3 ? (reply.slice(3) as (string | null)[]) : NO_VALUES;
    if (outcome === 1) return { throttledSeconds: throttledFor(this.failedAuthPerMinute, a, b), decision: null, values };
    if (outcome === 2) return { throttledSeconds: 0, decision: refusedBy(limits, b, nowMs), values };
    return { throttledSeconds: 0, decision: allowedWith(limits, a, b, nowMs), values };
  }

  async failedAuthBlockedFor(address: string): Promise<number> {
    const [failures, msLeft] = await this.#client.flashdeckReadFailures(this.#namespace + failedAuthKey(address));
    return throttledFor(this.failedAuthPerMinute, failures, msLeft);
  }

  async recordFailedAuth(address: string): Promise<void> {
    await this.#client.flashdeckRecordFailure(this.#namespace + failedAuthKey(address), FAILED_AUTH_SECONDS);
  }

  async claimAttempt(counters: readonly AttemptCounter[]): Promise<number> {
    const keys = counters.map(({ key }) => this.#namespace + attemptKey(key));
    const waitMs = await this.#client.flashdeckClaimAttempt(
      keys.length, ...keys, ...counters.map(({ limit }) => limit), ...counters.map(({ seconds }) => seconds),
    );
    return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
  }

  async releaseAttempt(counters: readonly AttemptCounter[]): Promise<void> {
    const keys = counters.map(({ key }) => this.#namespace + attemptKey(key));
    await this.#client.flashdeckReleaseAttempt(keys.length, ...keys);
  }
}
