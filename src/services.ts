// The ServiceContext of a store, for the app (buildApp) and the CLI alike.
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { MediaSettings, ServiceContext } from './context.ts';
import type { Db } from './db/database.ts';
import { loadOnce } from './load-once.ts';
import { getOrCreateSecret } from './modules/system/settings.repository.ts';
import { tokenRows } from './modules/tokens/token-cache.ts';
import { PasswordHasher, type HashingLimits } from './modules/users/password.ts';
import { BodyCache } from './stores/body-cache.ts';
import { databaseOnlyVersions, type VersionBoard } from './stores/version-board/version-board.ts';

export interface ServiceContextOptions {
  db: Db;
  clock: Clock;
  publicUrl: string;
  deckLimit: number | null;
  /** TOKEN_HASH_KEY when the operator set one; else a key made once and kept in the database. */
  tokenHashKey: string | null;
  /** The deployment's version board (none: every read asks the database). */
  deckVersions?: VersionBoard;
  /** PASSWORD_HASH_CONCURRENCY and PASSWORD_HASH_QUEUE (defaults: DEFAULT_HASHING). */
  hashing?: HashingLimits;
  /** MEDIA_QUOTA_BYTES and MEDIA_GRACE_HOURS (defaults: 200 MiB, 24 hours). */
  media?: MediaSettings;
}

export const DEFAULT_MEDIA_SETTINGS: MediaSettings = Object.freeze({
  quotaBytes: 200 * 1024 * 1024, graceMs: 24 * 3_600_000, apkgLimitBytes: 128 * 1024 * 1024, apkgTimeLimitMs: 60_000,
});

/** The media and package settings of a Config. */
export function mediaSettings(config: Pick<Config, 'mediaQuotaBytes' | 'mediaGraceHours' | 'apkgLimitBytes' | 'apkgTimeLimitMs'>): MediaSettings {
  return {
    quotaBytes: config.mediaQuotaBytes, graceMs: config.mediaGraceHours * 3_600_000,
    apkgLimitBytes: config.apkgLimitBytes, apkgTimeLimitMs: config.apkgTimeLimitMs,
  };
}

export async function createServiceContext(options: ServiceContextOptions): Promise<ServiceContext> {
  const { db } = options;
  const tokenHashKey = options.tokenHashKey ?? (await getOrCreateSecret(db, 'token_hash_key'));
  const cursorKey = await getOrCreateSecret(db, 'cursor_key');
  const csrfKey = await getOrCreateSecret(db, 'csrf_key');
  return {
    db,
    clock: options.clock,
    publicUrl: options.publicUrl,
    deckLimit: options.deckLimit,
    secrets: { tokenHashKey, cursorKey, csrfKey },
    deckBodies: new BodyCache(),
    // The renderers (markdown-it, KaTeX) load with the first page that shows a deck, not at start.
    renderedDecks: loadOnce(async () => new (await import('./modules/rendering/rendered-deck-cache.ts')).RenderedDeckCache()),
    tokenRows: tokenRows(),
    deckVersions: options.deckVersions ?? databaseOnlyVersions,
    passwords: new PasswordHasher(options.hashing),
    media: options.media ?? DEFAULT_MEDIA_SETTINGS,
  };
}
