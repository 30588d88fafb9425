// Personal access tokens as a TokenVerifier (src/modules/identity/verifier.ts): a token of the
// `svc_pat_` shape is checked here and nowhere else.
import type { ServiceContext } from '../../context.ts';
import type { Principal } from '../identity/principal.ts';
import { refusal, type TokenVerifier, type Verification } from '../identity/verifier.ts';
import type { CachedToken } from './token-cache.ts';
import { bytesEqual, hashesEqual, hashToken, parsePat, PAT_LENGTH, PAT_MARKER, PREFIX_LENGTH } from './token-format.ts';
import { findTokenByPrefix, type TokenRecord } from './tokens.repository.ts';

function principalOfToken(token: TokenRecord): Principal {
  return {
    userId: token.userId,
    source: 'pat',
    credentialId: token.id,
    name: token.name,
    prefix: token.prefix,
    scopes: token.scopes,
    bucket: `tok:${token.id}`,
  };
}

/**
 * A presented PAT: malformed or unknown is UNAUTHORIZED; one whose secret matches but which is
 * revoked or expired is TOKEN_REVOKED, with its principal (the call goes to its activity log).
 */
export function verifyPat(ctx: ServiceContext, presented: string): Verification | Promise<Verification> {
  const again = verifiedBefore(ctx, presented);
  if (again !== undefined) return standing(ctx, again);
  const prefix = parsePat(presented);
  if (prefix === null) return refusal('malformed');
  // A token read within the cache's lifetime is checked without a promise (the hot path).
  const fresh = ctx.tokenRows.fresh(prefix);
  if (fresh !== undefined) return check(ctx, fresh, presented);
  return ctx.tokenRows.get(prefix, async (p) => {
    const token = await findTokenByPrefix(ctx.db, p);
    return token === null ? null : { token };
  }).then((cached) => (cached === null
    ? refusal('notValid')
    : check(ctx, cached, presented)));
}

/**
 * The fresh cached row whose verified token is exactly `presented` (compared in constant time):
 * that token passed the shape, checksum and HMAC checks when it was verified, so they are not
 * repeated (about 2 µs of every request, docs/performance.md).
 */
function verifiedBefore(ctx: ServiceContext, presented: string): CachedToken | undefined {
  if (presented.length !== PAT_LENGTH) return undefined;
  const cached = ctx.tokenRows.fresh(presented.slice(PAT_MARKER.length, PAT_MARKER.length + PREFIX_LENGTH));
  return cached?.verified !== undefined && bytesEqual(cached.verified, presented) ? cached : undefined;
}

/** A token verifiedBefore did not know: its HMAC against the row decides, and is remembered. */
function check(ctx: ServiceContext, cached: CachedToken, presented: string): Verification {
  if (!hashesEqual(cached.token.hash, hashToken(ctx.secrets.tokenHashKey, presented))) {
    return refusal('notValid');
  }
  cached.verified = Buffer.from(presented);
  return standing(ctx, cached);
}

/** A verified token's row: revoked or expired is TOKEN_REVOKED, with its principal. */
function standing(ctx: ServiceContext, cached: CachedToken): Verification {
  const token = cached.token;
  cached.principal ??= principalOfToken(token);
  if (token.revokedAt !== null) return refusal('revoked', cached.principal);
  cached.expiresAtMs ??= token.expiresAt === null ? null : Date.parse(token.expiresAt);
  if (cached.expiresAtMs !== null && cached.expiresAtMs <= ctx.clock.now().getTime()) {
    return refusal('expired', cached.principal);
  }
  return cached.ok ??= { principal: cached.principal, refused: null };
}

export function patVerifier(ctx: ServiceContext): TokenVerifier {
  return {
    recognises: (token) => token.startsWith(PAT_MARKER),
    verify: (token) => verifyPat(ctx, token),
  };
}
