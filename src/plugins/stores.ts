// Shared-state backends chosen once at boot. Without REDIS_URL everything is in-process; the
// Redis implementations slot in behind the same interfaces.
import { RateLimiterMemory } from 'rate-limiter-flexible';
import type { LimiterFactory } from './rate-limits.ts';

export interface SharedStores {
  limiterFactory: LimiterFactory;
  close(): Promise<void>;
}

export function createInProcessStores(): SharedStores {
  return {
    limiterFactory: (options) => new RateLimiterMemory(options),
    close: async () => {},
  };
}
