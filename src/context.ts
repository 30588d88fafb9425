// What services need from the outside world, built once at boot (src/services.ts, by the app and
// by the CLI) and passed first to every service: `(ctx, actor, input)`, or `(ctx, input)` for an
// operator's action.
import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { LoadOnce } from './load-once.ts';
import type { RenderedDeckCache } from './modules/rendering/rendered-deck-cache.ts';
import type { CachedToken } from './modules/tokens/token-cache.ts';
import type { PasswordHasher } from './modules/users/password.ts';
import type { BodyCache } from './stores/body-cache.ts';
import type { RecentRows } from './stores/recent-rows.ts';
import type { VersionBoard } from './stores/version-board/version-board.ts';

/** Server-wide keys, read once at boot (operator config, else made once and kept in the database). */
export interface Secrets {
  /** Keys the HMAC under which personal access tokens are stored. */
  readonly tokenHashKey: string;
  /** Signs GET /decks continuation tokens so a tampered one is refused. */
  readonly cursorKey: string;
  /** Keys the HMAC of the web pages' CSRF tokens (shared by every instance). */
  readonly csrfKey: string;
}

export interface ServiceContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly publicUrl: string;
  readonly deckLimit: number | null;
  readonly secrets: Secrets;
  // What an app keeps in memory is held here, one of each per app (and per CLI run), never in a
  // module-level variable: two apps in one process (tests, two instances) never share them.
  /** Rendered deck reads, per deck version (one cache per app). */
  readonly deckBodies: BodyCache;
  /** Decks rendered as HTML for the pages, per deck version; loaded with the renderers on first use. */
  readonly renderedDecks: LoadOnce<RenderedDeckCache>;
  /** Personal access token rows by prefix, kept TOKEN_CACHE_MS (modules/tokens/token-cache.ts). */
  readonly tokenRows: RecentRows<CachedToken>;
  /** Deck versions shared by every instance, so a held body needs no database read. */
  readonly deckVersions: VersionBoard;
  /** Password hashing with bounded concurrency (32 MiB per running hash). */
  readonly passwords: PasswordHasher;
  /** The operator's media settings (modules/media). */
  readonly media: MediaSettings;
}

export interface MediaSettings {
  /** Bytes of images one user may own. */
  readonly quotaBytes: number;
  /** How long media no deck refers to is kept before the purge removes it. */
  readonly graceMs: number;
  /** Largest Anki package taken, in bytes. */
  readonly apkgLimitBytes: number;
  /** How long reading an Anki package may take. */
  readonly apkgTimeLimitMs: number;
}

/** Runs last inside a write's transaction, with its result (the idempotency record goes here). */
export type BeforeCommit<T> = (trx: Db, result: T) => Promise<void>;

/** A compare-and-set lost to a concurrent writer; the transaction is retried from the start. */
export class ConcurrentUpdate extends Error {}

export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => work(trx));
    } catch (error) {
      if (!(error instanceof ConcurrentUpdate) || attempt >= 50) throw error;
    }
  }
}
