// Token rows by prefix, kept for a moment. Every request authenticates; on PostgreSQL the token
// lookup is a network round trip, and measured (docs/deployment.md) it was a third of the cost of
// a deck read. Tokens never change except by revocation, and DECISIONS promises revocation on
// every instance within 5 seconds: this instance forgets a token it revokes at once, the others
// re-read it within TOKEN_CACHE_MS. Expiry is still checked on every request. The rows are held in
// the ServiceContext (`ctx.tokenRows`, one per app, the CLI's and a test's server's alike).
import type { Principal } from '../identity/principal.ts';
import type { Verification } from '../identity/verifier.ts';
import { RecentRows } from '../../stores/recent-rows.ts';
import type { TokenRecord } from './tokens.repository.ts';

export const TOKEN_CACHE_MS = 2000;

export interface CachedToken {
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

/** The token rows of one app, by prefix. */
export function tokenRows(): RecentRows<CachedToken> {
  return new RecentRows(TOKEN_CACHE_MS);
}
