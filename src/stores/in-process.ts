// One instance alone: counters in this process, no version board (every read asks the database).
import { InProcessRateLimits } from './rate-limits/in-process.ts';
import type { SharedStores } from './shared-stores.ts';
import { databaseOnlyVersions } from './version-board/version-board.ts';

export function createInProcessStores(): SharedStores {
  return {
    rateLimits: (options) => new InProcessRateLimits(options),
    versionBoard: () => databaseOnlyVersions,
    checks: {},
    close: async () => {},
  };
}
