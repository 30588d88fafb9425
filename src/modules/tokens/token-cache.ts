// Token rows by prefix, kept for a moment. Every request authenticates; on PostgreSQL the token
// lookup is a network round trip, and measured (docs/deployment.md) it was a third of the cost of
// a deck read. Tokens never change except by revocation, and DECISIONS promises revocation on
// every instance within 5 seconds: this instance forgets a token it revokes at once, the others
// re-read it within TOKEN_CACHE_MS. Expiry is still checked on every request. Unknown prefixes are
// never cached, so guessing cannot fill the cache.
import { performance } from 'node:perf_hooks';
import type { Db } from '../../db/database.ts';
import { hashesEqual } from './token-format.ts';
import type { TokenRecord } from './tokens.repository.ts';

export const TOKEN_CACHE_MS = 2000;
const MAX_ENTRIES = 10_000;

interface Entry {
  readAt: number;
  token: TokenRecord;
  /** The presented token whose HMAC matched this row, so a repeat skips the HMAC (~5% of a read). */
  verified?: string;
}

/** One cache per store (an app, the CLI, a test's server), dropped with it. */
const caches = new WeakMap<Db, Map<string, Entry>>();

function cacheOf(db: Db): Map<string, Entry> {
  let cache = caches.get(db);
  if (cache === undefined) {
    cache = new Map();
    caches.set(db, cache);
  }
  return cache;
}

export async function cachedToken(db: Db, prefix: string, read: (prefix: string) => Promise<TokenRecord | null>): Promise<TokenRecord | null> {
  const cache = cacheOf(db);
  const now = performance.now();
  const hit = cache.get(prefix);
  if (hit !== undefined && now - hit.readAt < TOKEN_CACHE_MS) return hit.token;
  const token = await read(prefix);
  cache.delete(prefix);
  if (token !== null) {
    if (cache.size >= MAX_ENTRIES) cache.delete(cache.keys().next().value as string);
    cache.set(prefix, { readAt: now, token });
  }
  return token;
}

export function forgetToken(db: Db, prefix: string): void {
  caches.get(db)?.delete(prefix);
}

/** Whether `presented` is the token already verified against this cached row. */
export function isVerified(db: Db, prefix: string, presented: string): boolean {
  const verified = caches.get(db)?.get(prefix)?.verified;
  return verified !== undefined && hashesEqual(verified, presented);
}

export function rememberVerified(db: Db, prefix: string, presented: string): void {
  const entry = caches.get(db)?.get(prefix);
  if (entry !== undefined) entry.verified = presented;
}
