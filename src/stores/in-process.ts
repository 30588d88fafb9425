// One instance alone: counters and deck versions in this process.
import { InProcessRateLimits } from './rate-limits/in-process.ts';
import type { SharedStores } from './shared-stores.ts';
import { InProcessVersionBoard } from './version-board/in-process.ts';

export function createInProcessStores(): SharedStores {
  return {
    rateLimits: (options) => new InProcessRateLimits(options),
    versionBoard: () => new InProcessVersionBoard(),
    checks: {},
    close: async () => {},
  };
}
