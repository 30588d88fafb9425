// Every instance of a deployment against one Redis: shared rate-limit counters, failed-auth
// throttle and version board, all under one key namespace.
import { Redis } from 'ioredis';
import { RedisRateLimits } from './rate-limits/redis.ts';
import type { SharedStores } from './shared-stores.ts';
import { RedisVersionBoard } from './version-board/redis.ts';
export interface RedisStoreOptions {
  /** Prefix of every key this instance writes; instances of one deployment share it. */
  namespace?: string;
  /** How long boot waits for the first connection before serving (and answering 503) anyway. */
  connectWaitMs?: number;
}

export const DEFAULT_REDIS_NAMESPACE = 'flashdeck:';

export async function createRedisStores(url: string, options: RedisStoreOptions = {}): Promise<SharedStores> {
  const namespace = options.namespace ?? DEFAULT_REDIS_NAMESPACE;
  const client = new Redis(url, {
    // Fail fast instead of queueing while Redis is away: the request gets a 503 now rather than
    // hanging; reconnection goes on in the background forever, so service returns by itself.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 2000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    disableClientInfo: true,
    lazyConnect: true,
    // Commands issued in the same tick (many requests' rate-limit checks) go out in one write.
    enableAutoPipelining: true,
  });
  // Without a listener an 'error' event would crash the process; the failures reach the requests
  // that need Redis (503) and /healthz instead.
  client.on('error', () => {});
  await waitForReady(client, options.connectWaitMs ?? 5000);

  return {
    rateLimits: (limitOptions) => new RedisRateLimits(client, namespace, limitOptions),
    versionBoard: (kind, onError) => new RedisVersionBoard(client, namespace, kind, onError),
    checks: {
      redis: async () => {
        await client.ping();
      },
    },
    close: async () => {
      try {
        if (client.status === 'ready') await client.quit();
      } catch {
        // already gone
      } finally {
        client.disconnect();
      }
    },
  };
}

async function waitForReady(client: Redis, waitMs: number): Promise<void> {
  client.connect().catch(() => {}); // the retry strategy keeps trying after a failed first attempt
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    client.once('ready', done);
  });
}
