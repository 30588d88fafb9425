// What the authorization server (surfaces/oauth/provider.ts, oidc-provider) keeps in the project's
// store: its signing key and its storage adapter. The surface asks this service for both instead
// of reading settings or building the adapter over the database itself.
import { createHmac, generateKeyPairSync } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import { getOrCreateSecret } from '../system/settings.repository.ts';
import { oauthAdapter } from './oauth-adapter.ts';

/**
 * The key oidc-provider signs with (ID tokens, should a client ask for `openid`): made once per
 * deployment and kept in the database, so every instance signs with the same one.
 */
export async function oauthSigningKey(ctx: ServiceContext): Promise<Record<string, unknown>> {
  const stored = await getOrCreateSecret(ctx.db, 'oauth_signing_jwk', () => JSON.stringify(
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  ));
  // Our own text, written above: not outside input.
  const jwk = JSON.parse(stored) as Record<string, unknown>;
  return { ...jwk, alg: 'ES256', use: 'sig', kid: createHmac('sha256', 'kid').update(String(jwk.x)).digest('base64url').slice(0, 16) };
}

/** oidc-provider's adapter class: its grants, clients and tokens in the project's database. */
export function oauthStorage(ctx: ServiceContext): new (model: string) => object {
  return oauthAdapter(ctx.db, ctx.clock);
}
