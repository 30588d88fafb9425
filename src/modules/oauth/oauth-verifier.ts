// OAuth access tokens as a TokenVerifier (src/modules/identity/verifier.ts). Tokens are opaque:
// a token is a row (oauth-adapter.ts), so a disconnected grant or a reused refresh token (which
// revokes the grant's tokens) is refused as soon as the row is re-read; a revoked token's row is
// kept, so it is refused as revoked (TOKEN_REVOKED), like a personal access token. Rows are kept for
// TOKEN_CACHE_MS like PATs (token-cache.ts), which keeps DECISIONS' 5-second revocation bound on
// every instance while a busy token costs one lookup per two seconds, not one per call.
import type { ServiceContext } from '../../context.ts';
import type { Principal } from '../identity/principal.ts';
import { isScope, type Scope } from '../identity/scopes.ts';
import { refusal, type TokenVerifier, type Verification } from '../identity/verifier.ts';
import { RecentRows } from '../../stores/recent-rows.ts';
import { TOKEN_CACHE_MS } from '../tokens/token-cache.ts';
import { storedId } from './oauth-adapter.ts';
import { findAccessToken } from './oauth.repository.ts';

/** oidc-provider's opaque values: 256 random bits, 43 characters of base64url. */
const OPAQUE = /^[\w-]{43}$/;

interface Cached {
  principal: Principal;
  /** The resource the token is bound to (RFC 8707). */
  audience: string;
  /** Epoch milliseconds. */
  expiresAt: number;
  revoked: boolean;
  ok: Verification;
}

function audienceOf(payload: Record<string, unknown>): string {
  const { aud } = payload;
  if (typeof aud === 'string') return aud;
  if (Array.isArray(aud) && aud.length === 1 && typeof aud[0] === 'string') return aud[0];
  return '';
}

/**
 * The token's `prefix` (whoami): the start of its SHA-256, the key it is stored under. An opaque
 * token has no public part as a personal access token has, and its own characters are secret
 * (DECISIONS: a prefix reveals nothing of the secret); the hash's tell tokens apart, and the
 * holder can compute them.
 */
const PREFIX_LENGTH = 10;

function principalOfGrant(id: string, payload: Record<string, unknown>): Principal | null {
  const { accountId, grantId, scope, extra } = payload;
  if (typeof accountId !== 'string' || typeof grantId !== 'string') return null;
  const scopes = typeof scope === 'string' ? scope.split(' ').filter((s): s is Scope => isScope(s)) : [];
  const clientName = typeof extra === 'object' && extra !== null ? (extra as Record<string, unknown>).client_name : undefined;
  return {
    userId: accountId,
    source: 'oauth',
    credentialId: grantId,
    name: typeof clientName === 'string' ? clientName : String(payload.clientId),
    prefix: id.slice(0, PREFIX_LENGTH),
    scopes,
    bucket: `grant:${grantId}`,
  };
}

export function oauthVerifier(ctx: ServiceContext): TokenVerifier {
  // This app's token rows, kept TOKEN_CACHE_MS as a personal access token's are.
  const rows = new RecentRows<Cached>(TOKEN_CACHE_MS);

  async function lookup(token: string): Promise<Cached | null> {
    const id = storedId('AccessToken', token);
    const found = await findAccessToken(ctx.db, id);
    if (found === null) return null;
    const { payload } = found.entity;
    const principal = principalOfGrant(id, payload);
    if (principal === null) return null;
    const exp = typeof payload.exp === 'number' ? payload.exp * 1000 : 0;
    return { principal, audience: audienceOf(payload), expiresAt: exp, revoked: found.revoked, ok: { principal, refused: null } };
  }

  return {
    recognises: (token) => OPAQUE.test(token),
    async verify(token, resource) {
      const entry = await rows.get(token, lookup);
      if (entry === null) return refusal('notValid');
      if (entry.revoked) return refusal('revoked', entry.principal);
      if (entry.expiresAt <= ctx.clock.now().getTime()) {
        return refusal('expired', entry.principal);
      }
      if (entry.audience !== resource) {
        return refusal('otherResource', entry.principal);
      }
      return entry.ok;
    },
  };
}
