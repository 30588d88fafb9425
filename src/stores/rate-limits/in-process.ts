// One process's counters (rate-limiter-flexible's memory limiters): exact for a single instance.
// There are no shared keys in-process, so every key a call asks to read is null.
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import {
  allowedWith, FAILED_AUTH_SECONDS, NO_VALUES, refusedBy, throttledFor, WINDOW_SECONDS, windowKeys,
  type Admission, type RateBucket, type RateLimitStore,
} from './rate-limits.ts';

async function consumeOne(limiter: RateLimiterMemory, key: string): Promise<{ ok: boolean; consumed: number }> {
  try {
    const res = await limiter.consume(key, 1);
    return { ok: true, consumed: res.consumedPoints };
  } catch (error) {
    if (error instanceof RateLimiterRes) return { ok: false, consumed: error.consumedPoints };
    throw error;
  }
}

function nulls(reads: readonly string[]): readonly (string | null)[] {
  return reads.length === 0 ? NO_VALUES : reads.map(() => null);
}

export class InProcessRateLimits implements RateLimitStore {
  readonly failedAuthPerMinute: number;
  // Limits come with each bucket, so the limiters only count (and expire) and the comparison with
  // the bucket's limits is ours. Counter keys carry the window index, so windows align to UTC.
  readonly #minute = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: WINDOW_SECONDS.minute });
  readonly #day = new RateLimiterMemory({ points: Number.MAX_SAFE_INTEGER, duration: WINDOW_SECONDS.day });
  readonly #failedAuth: RateLimiterMemory;

  constructor(options: { failedAuthPerMinute: number }) {
    this.failedAuthPerMinute = options.failedAuthPerMinute;
    this.#failedAuth = new RateLimiterMemory({ points: options.failedAuthPerMinute, duration: FAILED_AUTH_SECONDS });
  }

  async admit(bucket: RateBucket, address: string | null, reads: readonly string[], nowMs: number): Promise<Admission> {
    const values = nulls(reads);
    if (address !== null) {
      const blocked = await this.failedAuthBlockedFor(address);
      if (blocked > 0) return { throttledSeconds: blocked, decision: null, values };
    }
    const keys = windowKeys(bucket.key, nowMs);
    const limits = bucket.limits;
    // Each limiter counts atomically; a call refused by either window is taken back from both.
    const [m, d] = await Promise.all([consumeOne(this.#minute, keys.minute), consumeOne(this.#day, keys.day)]);
    const minuteOver = m.consumed > limits.perMinute;
    if (minuteOver || d.consumed > limits.perDay) {
      await Promise.all([this.#minute.reward(keys.minute, 1), this.#day.reward(keys.day, 1)]);
      return { throttledSeconds: 0, decision: refusedBy(limits, minuteOver ? 'minute' : 'day', nowMs), values };
    }
    return { throttledSeconds: 0, decision: allowedWith(limits, m.consumed, d.consumed, nowMs), values };
  }

  async failedAuthBlockedFor(address: string): Promise<number> {
    const res = await this.#failedAuth.get(address);
    return res === null ? 0 : throttledFor(this.failedAuthPerMinute, res.consumedPoints, res.msBeforeNext);
  }

  async recordFailedAuth(address: string): Promise<void> {
    await consumeOne(this.#failedAuth, address);
  }
}
