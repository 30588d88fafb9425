// The rate limits in Redis, shared by every instance. One Lua script per call does what
// rate-limiter-flexible needed four commands for (the failed-auth read, GET and PTTL, and one
// counting script per window), and reads the key the call peeks at (a deck's published version)
// in the same round trip. Measured, each command cost a deck read more than the Redis work it
// stood for (docs/performance.md). Scripts run atomically, so counts are exact across instances.
import type { Redis } from 'ioredis';
import {
  allowedWith, failedAuthKey, FAILED_AUTH_SECONDS, refusedBy, throttledFor, WINDOW_SECONDS, windowKeys,
  type Admission, type RateLimits, type RateLimitStore,
} from './rate-limits.ts';

// KEYS: the address's failed-auth counter, the token's minute and day counters, the peeked key.
// ARGV: the failed-auth limit, the minute and day limits, the minute and day counters' lifetimes,
// and '1' when there is a key to peek at.
// Returns {1, failures, ms left, peeked} while the address is throttled; {2, minute, day, peeked}
// when a window is exhausted (nothing is counted); else {0, minute, day, peeked} after counting
// the call in both windows. peeked is false (nil) when the key is unset or not asked for.
const ADMIT = `
local peeked = false
if ARGV[6] == '1' then peeked = redis.call('GET', KEYS[4]) end
local failures = tonumber(redis.call('GET', KEYS[1]) or '0')
if failures >= tonumber(ARGV[1]) then
  return {1, failures, redis.call('PTTL', KEYS[1]), peeked}
end
local m = tonumber(redis.call('GET', KEYS[2]) or '0')
local d = tonumber(redis.call('GET', KEYS[3]) or '0')
if m >= tonumber(ARGV[2]) or d >= tonumber(ARGV[3]) then
  return {2, m, d, peeked}
end
m = redis.call('INCR', KEYS[2])
if m == 1 then redis.call('EXPIRE', KEYS[2], ARGV[4]) end
d = redis.call('INCR', KEYS[3])
if d == 1 then redis.call('EXPIRE', KEYS[3], ARGV[5]) end
return {0, m, d, peeked}
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

interface ScriptedRedis {
  flashdeckAdmit(k1: string, k2: string, k3: string, k4: string, ...args: (string | number)[]): Promise<[number, number, number, string | null]>;
  flashdeckRecordFailure(key: string, lifetime: number): Promise<number>;
  flashdeckReadFailures(key: string): Promise<[number, number]>;
}

export class RedisRateLimits implements RateLimitStore {
  readonly limits: RateLimits;
  readonly #client: ScriptedRedis;
  readonly #namespace: string;

  constructor(client: Redis, namespace: string, limits: RateLimits) {
    this.limits = limits;
    this.#namespace = namespace;
    // ioredis sends each as EVALSHA, loading the script again if the server has lost it.
    client.defineCommand('flashdeckAdmit', { numberOfKeys: 4, lua: ADMIT });
    client.defineCommand('flashdeckRecordFailure', { numberOfKeys: 1, lua: RECORD_FAILURE });
    client.defineCommand('flashdeckReadFailures', { numberOfKeys: 1, lua: READ_FAILURES });
    this.#client = client as unknown as ScriptedRedis;
  }

  async admit(address: string, tokenId: string, nowMs: number, peek: string | null): Promise<Admission> {
    const ns = this.#namespace;
    const keys = windowKeys(tokenId, nowMs);
    const l = this.limits;
    // A script declares every key it touches; with nothing to peek at, the fourth is not read.
    const [outcome, a, b, peeked] = await this.#client.flashdeckAdmit(
      ns + failedAuthKey(address), ns + keys.minute, ns + keys.day, ns + (peek ?? keys.minute),
      l.failedAuthPerMinute, l.perMinute, l.perDay, WINDOW_SECONDS.minute, WINDOW_SECONDS.day, peek === null ? '0' : '1',
    );
    if (outcome === 1) return { blockedSeconds: throttledFor(l, a, b), decision: null, peeked };
    if (outcome === 2) return { blockedSeconds: 0, decision: refusedBy(l, a >= l.perMinute ? 'minute' : 'day', nowMs), peeked };
    return { blockedSeconds: 0, decision: allowedWith(l, a, b, nowMs), peeked };
  }

  async failedAuthBlockedFor(address: string): Promise<number> {
    const [failures, msLeft] = await this.#client.flashdeckReadFailures(this.#namespace + failedAuthKey(address));
    return throttledFor(this.limits, failures, msLeft);
  }

  async recordFailedAuth(address: string): Promise<void> {
    await this.#client.flashdeckRecordFailure(this.#namespace + failedAuthKey(address), FAILED_AUTH_SECONDS);
  }
}
