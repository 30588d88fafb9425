// Token rows by prefix, kept for a moment. Every request authenticates; on PostgreSQL the token
// lookup is a network round trip, and measured (docs/deployment.md) it was a third of the cost of
// a deck read. Tokens never change except by revocation, and DECISIONS promises revocation on
// every instance within 5 seconds: this instance forgets a token it revokes at once, the others
// re-read it within TOKEN_CACHE_MS. Expiry is still checked on every request. Unknown prefixes are
// never cached, so guessing cannot fill the cache.
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/database.ts';
import type { Principal } from '../identity/principal.ts';
import type { Verification } from '../identity/verifier.ts';
import type { TokenRecord } from './tokens.repository.ts';

export const TOKEN_CACHE_MS = 2000;
const MAX_ENTRIES = 10_000;

export interface CachedToken {
  readAt: number;
  token: TokenRecord;
  /**
   * The presented token (UTF-8) whose HMAC matched this row, so a repeat skips the HMAC (~5% of a
   * read) and the shape and checksum checks it passed then.
   */
  verified?: Buffer;
  /** The row's expiry in ms since the epoch (null: none), parsed once. */
  expiresAtMs?: number | null;
  /** The token's principal and its successful verification, made once per cached row. */
  principal?: Principal;
  ok?: Verification;
}

/** One cache per store (an app, the CLI, a test's server), dropped with it. */
const caches = new WeakMap<Db, Map<string, CachedToken>>();

function cacheOf(db: Db): Map<string, CachedToken> {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

/** The cached row of `prefix` if it was read less than TOKEN_CACHE_MS ago: no I/O, no promise. */
export function freshToken(db: Db, prefix: string): CachedToken | undefined {
  const hit = caches.get(db)?.get(prefix);
  return hit !== undefined && performance.now() - hit.readAt < TOKEN_CACHE_MS ? hit : undefined;
}

/** The row of `prefix`, read at most every TOKEN_CACHE_MS; null for an unknown prefix. */
export async function cachedToken(db: Db, prefix: string, read: (prefix: string) => Promise<TokenRecord | null>): Promise<CachedToken | null> {
  const hit = freshToken(db, prefix);
  if (hit !== undefined) return hit;
  const cache = cacheOf(db);
  const now = performance.now();
  const token = await read(prefix);
  cache.delete(prefix);
  if (token === null) return null;
  if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
  const entry = { readAt: now, token };
  cache.set(prefix, entry);
  return entry;
}

export function forgetToken(db: Db, prefix: string): void {
  caches.get(db)?.delete(prefix);
}
