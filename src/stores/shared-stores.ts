// State shared by the instances of one deployment, chosen once at boot: without REDIS_URL
// everything is in-process (in-process.ts); with it, rate-limit counters, the failed-auth throttle
// and published versions live in Redis (redis.ts) so every instance counts against the same numbers
// and sees the same versions. Idempotency claims and token revocation need no shared store here:
// they live in the database (docs/deployment.md).
import type { RateLimitStore } from './rate-limits/rate-limits.ts';
import type { VersionBoard } from './version-board/version-board.ts';
import { createInProcessStores } from './in-process.ts';
import type { RedisStoreOptions } from './redis.ts';

export interface SharedStores {
  rateLimits(options: { failedAuthPerMinute: number }): RateLimitStore;
  /**
   * Versions of resources of one kind (`deck`) every instance sees; onError hears of a version
   * that could not be published.
   */
  versionBoard(kind: string, onError: (error: unknown) => void): VersionBoard;
  /** Readiness probes by dependency name; each throws when its dependency is down. */
  checks: Record<string, () => Promise<void>>;
  close(): Promise<void>;
}

/** The one place that picks the implementation. */
export async function openSharedStores(redisUrl: string | null, options: RedisStoreOptions = {}): Promise<SharedStores> {
  if (redisUrl === null) return createInProcessStores();
  // Loaded only when configured: ioredis is about 10 MB of a single instance's memory.
  const { createRedisStores } = await import('./redis.ts');
  return createRedisStores(redisUrl, options);
}
