// The authorization server: oidc-provider (a certified implementation) configured to
// DECISIONS "OAuth 2.1": issuer PUBLIC_URL, endpoints under /oauth/, authorization code with PKCE
// S256 only (plus refresh, rotated, a reused one revoking the grant), dynamic registration and
// client ID metadata documents, tokens bound to the API or the MCP endpoint (RFC 8707), one hour.
// Its state lives in the project's database (modules/oauth/oauth-adapter.ts).
import { createHmac, generateKeyPairSync } from 'node:crypto';
import Provider, { errors, interactionPolicy, type OidcContext } from 'oidc-provider';
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { getOrCreateSecret } from '../../modules/system/settings.repository.ts';
import { guardedFetch, METADATA_MAX_BYTES, type MetadataFetchOptions } from '../../modules/oauth/metadata-fetch.ts';
import { oauthAdapter } from '../../modules/oauth/oauth-adapter.ts';
import { escapeHtml } from '../../modules/rendering/html-escape.ts';
import { OAUTH_SCOPES } from '../../modules/identity/scopes.ts';
import { PAGE_SECURITY_HEADERS } from '../page-security.ts';
import { OAUTH_PREFIX } from './authorization-server.ts';

export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 90 * 86_400;

/**
 * The key oidc-provider signs with (ID tokens, should a client ask for `openid`): made once per
 * deployment and kept in the database, so every instance signs with the same one.
 */
export async function oauthSigningKey(db: Db): Promise<Record<string, unknown>> {
  const stored = await getOrCreateSecret(db, 'oauth_signing_jwk', () => JSON.stringify(
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' }),
  ));
  // Our own text, written above: not outside input.
  const jwk = JSON.parse(stored) as Record<string, unknown>;
  return { ...jwk, alg: 'ES256', use: 'sig', kid: createHmac('sha256', 'kid').update(String(jwk.x)).digest('base64url').slice(0, 16) };
}

export interface ProviderOptions {
  signingKey: Record<string, unknown>;
  /** The resources tokens may be bound to: the API's `{base_url}` first (the default), then MCP. */
  resources: readonly string[];
  /** Behind a TLS-terminating proxy: trust X-Forwarded-* (as Fastify's trustProxy). */
  trustProxy: boolean;
  /** The outbound fetch of client ID metadata documents (tests inject theirs). */
  fetch?: MetadataFetchOptions;
}

/** Where oidc-provider sends the browser for sign-in and consent. */
export function interactionPath(uid: string): string {
  return `${OAUTH_PREFIX}/interaction/${uid}`;
}

function cookieKey(ctx: ServiceContext): string {
  // Every instance derives the same key from the store's secret: a cookie set by one is read by all.
  return createHmac('sha256', ctx.secrets.tokenHashKey).update('flashdeck oauth cookies').digest('base64url');
}

const REDIRECT_POLICY = 'flashdeck_redirect_policy';

function isLoopback(uri: string): boolean {
  const url = URL.parse(uri);
  return url !== null && url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === '[::1]');
}

/**
 * Redirect URIs match exactly and are https, except loopback ones (`http://127.0.0.1`,
 * `http://[::1]`), whose port may vary (RFC 8252 7.3): oidc-provider allows that for native
 * clients, so a client with a loopback redirect is one.
 */
function applyRedirectPolicy(metadata: Record<string, unknown>): void {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris as unknown[] : [];
  for (const uri of uris) {
    if (typeof uri !== 'string' || (!uri.startsWith('https://') && !isLoopback(uri))) {
      throw new errors.InvalidClientMetadata('redirect_uris must be https, or http on 127.0.0.1 or [::1]');
    }
  }
  if (uris.some((uri) => typeof uri === 'string' && isLoopback(uri))) metadata.application_type = 'native';
}

/** An error shown to the browser (not to a client): plain, escaped, no script, no third party, the pages' headers. */
function renderError(c: { type: string; body: unknown; set(name: string, value: string): void }, out: Record<string, unknown>): void {
  const description = typeof out.error_description === 'string' ? out.error_description : 'The request could not be completed.';
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) c.set(name, value);
  c.type = 'html';
  c.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<title>Authorization failed · Flashdeck</title>`
    + `<link rel="stylesheet" href="/assets/site.css"></head><body><main id="main"><h1>The app could not be connected</h1>`
    + `<p>${escapeHtml(description)}</p><p>Start again from the app. <a href="/">Flashdeck</a></p></main></body></html>`;
}

/**
 * oidc-provider rotates a refresh token (spends it and saves its successor) before it resolves the
 * resource the request names, so a refused `resource` would spend the token and hand out nothing:
 * the client's next, proper refresh would then count as reuse and revoke the whole grant. The same
 * resolution, made first (oidc-provider's resolve_resource: a list resolves to the default).
 */
function assertRefreshTarget(c: OidcContext, defaultResource: string | undefined): void {
  const asked = c.oidc.params?.resource;
  const token = c.oidc.entities.RefreshToken;
  if (asked === undefined || token === undefined) return;
  const resolved = Array.isArray(asked) ? defaultResource : asked;
  if (typeof resolved !== 'string' || !token.resourceIndicators.has(resolved)) throw new errors.InvalidTarget('this refresh token was not issued for that resource');
}

export function createProvider(ctx: ServiceContext, options: ProviderOptions): Provider {
  const [defaultResource] = options.resources;
  const policy = interactionPolicy.base();
  // Every authorization goes through the service's own sign-in and consent page: the provider's
  // session never stands in for the person's web session (it may have signed out since).
  policy.get('login')?.checks.add(new interactionPolicy.Check(
    'flashdeck_sign_in', 'The signed-in person confirms every authorization',
    (c: OidcContext) => c.oidc.result?.login === undefined,
  ));

  const provider = new Provider(ctx.publicUrl, {
    adapter: oauthAdapter(ctx.db),
    jwks: { keys: [options.signingKey] },
    routes: {
      authorization: `${OAUTH_PREFIX}/authorize`,
      token: `${OAUTH_PREFIX}/token`,
      revocation: `${OAUTH_PREFIX}/revoke`,
      registration: `${OAUTH_PREFIX}/register`,
      jwks: `${OAUTH_PREFIX}/jwks`,
      end_session: `${OAUTH_PREFIX}/session/end`,
      userinfo: `${OAUTH_PREFIX}/userinfo`,
      introspection: `${OAUTH_PREFIX}/introspect`,
      pushed_authorization_request: `${OAUTH_PREFIX}/par`,
      code_verification: `${OAUTH_PREFIX}/device`,
      device_authorization: `${OAUTH_PREFIX}/device/auth`,
      backchannel_authentication: `${OAUTH_PREFIX}/backchannel`,
      challenge: `${OAUTH_PREFIX}/challenge`,
    },
    scopes: [...OAUTH_SCOPES],
    claims: { openid: ['sub'] },
    responseTypes: ['code'],
    grantTypes: ['authorization_code', 'refresh_token'],
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none', id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Neither is in DECISIONS, and the API takes plain bearer tokens: a DPoP-bound token would
      // be accepted without its proof, so none is issued.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: true },
      revocation: { enabled: true },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 300, max: 86_400 },
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => defaultResource,
        useGrantedResource: () => true,
        getResourceServerInfo: (_c: unknown, indicator: string) => {
          if (!options.resources.includes(indicator)) throw new errors.InvalidTarget('this server issues tokens for its API and MCP endpoint only');
          return { scope: OAUTH_SCOPES.join(' '), audience: indicator, accessTokenTTL: ACCESS_TOKEN_TTL_S, accessTokenFormat: 'opaque' };
        },
      },
    },
    extraClientMetadata: {
      // A property no client sends: its validator runs on every registration and metadata document,
      // with the whole metadata, to apply DECISIONS' redirect rule.
      properties: [REDIRECT_POLICY],
      validator: (_c: unknown, key: string, _value: unknown, metadata: Record<string, unknown>) => {
        if (key === REDIRECT_POLICY) applyRedirectPolicy(metadata);
      },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_S,
      Grant: REFRESH_TOKEN_TTL_S,
      Interaction: 3600,
      Session: 3600,
    },
    rotateRefreshToken: (c: OidcContext) => {
      assertRefreshTarget(c, defaultResource);
      return true;
    },
    issueRefreshToken: (_c: unknown, client: { grantTypeAllowed(t: string): boolean }) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: () => false,
    extraTokenClaims: (c: OidcContext) => ({ client_name: c.oidc.client?.clientName ?? c.oidc.client?.clientId }),
    interactions: { url: (_c: unknown, interaction: { uid: string }) => interactionPath(interaction.uid), policy },
    findAccount: (_c: unknown, accountId: string) => ({ accountId, claims: () => ({ sub: accountId }) }),
    cookies: {
      keys: [cookieKey(ctx)],
      long: { signed: true, path: OAUTH_PREFIX, sameSite: 'lax' },
      short: { signed: true, path: OAUTH_PREFIX, sameSite: 'lax' },
    },
    fetch: guardedFetch(options.fetch),
    fetchResponseBodyLimits: { 'client_id metadata document': options.fetch?.maxBytes ?? METADATA_MAX_BYTES },
    enableHttpPostMethods: false,
    renderError,
  });
  provider.proxy = options.trustProxy;
  // RFC 6749 3.3: an authorization request that names no scope gets the pre-defined default, every
  // OAuth scope, which the consent page shows and the person may narrow (without it, an Allow
  // would grant nothing and end in access_denied).
  provider.use(async (c, next) => {
    if (c.method === 'GET' && c.path === `${OAUTH_PREFIX}/authorize` && (c.query.scope === undefined || c.query.scope === '')) {
      c.query = { ...c.query, scope: OAUTH_SCOPES.join(' ') };
    }
    await next();
  });
  return provider;
}
