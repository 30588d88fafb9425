// Per-token limits over fixed UTC windows (minute, day), and the failed-authentication throttle
// per client address. Counters live in rate-limiter-flexible limiters: in-process by default,
// Redis-backed when the deployment shares them; the choice is made once, in stores.ts.
import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

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

export interface LimiterFactory {
  (options: { keyPrefix: string; points: number; duration: number }): RateLimiterAbstract;
}

const WINDOW_SECONDS: Record<WindowName, number> = { minute: 60, day: 86_400 };

function windowOf(name: WindowName, nowMs: number): { index: number; resetSeconds: number } {
  const size = WINDOW_SECONDS[name] * 1000;
  const index = Math.floor(nowMs / size);
  return { index, resetSeconds: Math.max(1, Math.ceil(((index + 1) * size - nowMs) / 1000)) };
}

async function consumeOne(limiter: RateLimiterAbstract, key: string): Promise<{ ok: boolean; consumed: number }> {
  try {
    const res = await limiter.consume(key, 1);
    return { ok: true, consumed: res.consumedPoints };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { ok: false, consumed: error.consumedPoints };
    throw error;
  }
}

export class TokenRateLimiter {
  readonly perMinute: number;
  readonly perDay: number;
  readonly #minute: RateLimiterAbstract;
  readonly #day: RateLimiterAbstract;

  constructor(create: LimiterFactory, perMinute: number, perDay: number) {
    this.perMinute = perMinute;
    this.perDay = perDay;
    this.#minute = create({ keyPrefix: 'rl:tok:minute', points: perMinute, duration: WINDOW_SECONDS.minute });
    this.#day = create({ keyPrefix: 'rl:tok:day', points: perDay, duration: WINDOW_SECONDS.day });
  }

  policyHeader(): string {
    return `"minute";q=${this.perMinute};w=60, "day";q=${this.perDay};w=86400`;
  }

  /** Takes back a call counted by consume() that was refused for another reason. */
  async refund(subject: string, nowMs: number): Promise<void> {
    await Promise.all([
      this.#minute.reward(`${subject}:${windowOf('minute', nowMs).index}`, 1),
      this.#day.reward(`${subject}:${windowOf('day', nowMs).index}`, 1),
    ]);
  }

  /** Counts one call, unless a window is exhausted: rejected calls do not count. */
  async consume(subject: string, nowMs: number): Promise<RateDecision> {
    const minute = windowOf('minute', nowMs);
    const day = windowOf('day', nowMs);
    // The window index is part of the key, so windows are aligned to the UTC minute and day.
    const minuteKey = `${subject}:${minute.index}`;
    const dayKey = `${subject}:${day.index}`;
    // Both windows at once: on Redis, one round trip. A refused call is taken back from both.
    const [m, d] = await Promise.all([consumeOne(this.#minute, minuteKey), consumeOne(this.#day, dayKey)]);
    if (!m.ok || !d.ok) {
      await Promise.all([this.#minute.reward(minuteKey, 1), this.#day.reward(dayKey, 1)]);
      return !m.ok
        ? { allowed: false, window: 'minute', limit: this.perMinute, remaining: 0, resetSeconds: minute.resetSeconds }
        : { allowed: false, window: 'day', limit: this.perDay, remaining: 0, resetSeconds: day.resetSeconds };
    }
    const minuteLeft = this.perMinute - m.consumed;
    const dayLeft = this.perDay - d.consumed;
    return minuteLeft <= dayLeft
      ? { allowed: true, window: 'minute', limit: this.perMinute, remaining: minuteLeft, resetSeconds: minute.resetSeconds }
      : { allowed: true, window: 'day', limit: this.perDay, remaining: dayLeft, resetSeconds: day.resetSeconds };
  }
}

export function rateLimitHeader(decision: RateDecision): string {
  return `"${decision.window}";r=${decision.remaining};t=${decision.resetSeconds}`;
}

/** Failed authentications per client address and minute; past the limit, 429 until it resets. */
export class FailedAuthThrottle {
  readonly #limiter: RateLimiterAbstract;
  readonly #points: number;

  constructor(create: LimiterFactory, perMinute: number) {
    this.#points = perMinute;
    this.#limiter = create({ keyPrefix: 'rl:authfail', points: perMinute, duration: 60 });
  }

  /** Seconds to wait if this address is throttled, else 0. */
  async blockedFor(address: string): Promise<number> {
    const res = await this.#limiter.get(address);
    if (!res || res.consumedPoints < this.#points) return 0;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }

  async recordFailure(address: string): Promise<void> {
    await consumeOne(this.#limiter, address);
  }
}
