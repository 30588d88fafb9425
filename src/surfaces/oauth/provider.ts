// The authorization server: oidc-provider (a certified implementation) configured to
// DECISIONS "OAuth 2.1": issuer PUBLIC_URL, endpoints under /oauth/, authorization code with PKCE
// S256 only (plus refresh, rotated, a reused one revoking the grant), dynamic registration and
// client ID metadata documents, tokens bound to the API or the MCP endpoint (RFC 8707), one hour.
// Its state and signing key live in the project's database (modules/oauth/oauth-provider.service.ts).
import { createHmac } from 'node:crypto';
import Provider, { errors, interactionPolicy, type OidcClient, type OidcContext } from 'oidc-provider';
import type { ServiceContext } from '../../context.ts';
import { guardedFetch, METADATA_MAX_BYTES, type MetadataFetchOptions } from '../../modules/oauth/metadata-fetch.ts';
import { oauthStorage } from '../../modules/oauth/oauth-provider.service.ts';
import { escapeHtml } from '../../modules/rendering/html-escape.ts';
import { redirectKind } from '../../modules/oauth/redirect-uris.ts';
import { authorizationScope } from '../../modules/oauth/authorization-scopes.ts';
import { OAUTH_SCOPES } from '../../modules/identity/scopes.ts';
import { PAGE_SECURITY_HEADERS } from '../page-security.ts';
import { OAUTH_PREFIX } from '../authorization-server.ts';

export const ACCESS_TOKEN_TTL_S = 3600;
const REFRESH_TOKEN_TTL_S = 90 * 86_400;

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
/** How clients authenticate at the token and the revocation endpoint alike. */
const CLIENT_AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;
const SECRET_METHODS: ReadonlySet<string> = new Set(['client_secret_basic', 'client_secret_post']);

/** A client identified by the https URL of its metadata document (registered ones get random ids). */
function isMetadataDocumentClient(metadata: Record<string, unknown>): boolean {
  return typeof metadata.client_id === 'string' && metadata.client_id.startsWith('https://');
}

/**
 * DECISIONS' redirect rule (modules/oauth/redirect-uris.ts), run on every registration and client
 * ID metadata document. A client with a loopback or private-use redirect is a native one (RFC
 * 8252): oidc-provider then lets a loopback redirect's port vary and takes the app's own scheme.
 * Registration follows RFC 7591: the default method is client_secret_basic (with a secret), which a
 * metadata document cannot use (it holds no secret), so a document that names none is a public
 * client.
 */
function applyClientPolicy(metadata: Record<string, unknown>): void {
  const uris = Array.isArray(metadata.redirect_uris) ? metadata.redirect_uris as unknown[] : [];
  let native = false;
  for (const uri of uris) {
    const kind = redirectKind(uri);
    // oidc-provider answers a description that starts with "redirect_uris" as invalid_redirect_uri.
    if ('refused' in kind) throw new errors.InvalidClientMetadata(`redirect_uris: ${kind.refused}`);
    if (kind.kind !== 'https') native = true;
  }
  if (native) metadata.application_type = 'native';
  // oidc-provider refuses a document that names a secret method, so one seen here is the default.
  if (isMetadataDocumentClient(metadata) && SECRET_METHODS.has(String(metadata.token_endpoint_auth_method))) {
    metadata.token_endpoint_auth_method = 'none';
  }
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

function revocationAllowed(_c: unknown, client: OidcClient & { clientAuthMethod: string }, token: { clientId: string }): boolean {
  if (token.clientId === client.clientId) return true;
  // A public client learns nothing (200, nothing revoked); an authenticated one is told.
  if (client.clientAuthMethod === 'none') return false;
  throw new errors.InvalidRequest('client is not authorized to revoke the presented token');
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
    adapter: oauthStorage(ctx),
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
    clientAuthMethods: [...CLIENT_AUTH_METHODS],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'client_secret_basic', id_token_signed_response_alg: 'ES256',
    },
    enabledJWA: { idTokenSigningAlgValues: ['ES256'] },
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // Neither is in DECISIONS, and the API takes plain bearer tokens: a DPoP-bound token would
      // be accepted without its proof, so none is issued.
      dPoP: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      // RP-initiated logout would end only oidc-provider's own session, never the person's web
      // session (the one that consents), and its pages carry none of the pages' security headers.
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      registration: { enabled: true },
      // RFC 7009 2.1: a client revokes only what was issued to it (oidc-provider's default rule,
      // written out so that it does not log a notice asking for one at every revocation).
      revocation: { enabled: true, allowedPolicy: revocationAllowed },
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
        if (key === REDIRECT_POLICY) applyClientPolicy(metadata);
      },
    },
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_S,
      AuthorizationCode: 60,
      IdToken: 3600,
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
    // oidc-provider leaves it out, and RFC 8414 reads its absence as client_secret_basic only:
    // public clients (the agents, the plugin) would be told they cannot revoke their tokens.
    discovery: { revocation_endpoint_auth_methods_supported: [...CLIENT_AUTH_METHODS] },
    renderError,
  });
  provider.proxy = options.trustProxy;
  // Every URL the provider writes (the discovery document's endpoints, redirects to the consent
  // page) is on PUBLIC_URL's host, whatever Host the request came with: Koa builds them from the
  // request, so a forged Host was written back into the metadata beside the PUBLIC_URL issuer.
  // (The scheme stays the request's, as trustProxy reads it: the cookies' Secure flag follows it.)
  const publicHost = new URL(ctx.publicUrl).host;
  provider.use(async (c, next) => {
    Object.defineProperty(c.request, 'host', { value: publicHost });
    await next();
  });
  // DECISIONS: unknown scope values are dropped, and a request left with no OAuth scope gets the
  // default (RFC 6749 3.3), which the consent page shows and the person may narrow. Without it,
  // `scope=profile` would show consent for nothing the app could be given and end in access_denied.
  provider.use(async (c, next) => {
    if (c.method === 'GET' && c.path === `${OAUTH_PREFIX}/authorize` && !Array.isArray(c.query.scope)) {
      c.query = { ...c.query, scope: authorizationScope(c.query.scope, await registeredScope(provider, c.query.client_id)) };
    }
    await next();
  });
  return provider;
}

/** The scope a client registered, if any (oidc-provider answers for an unknown client itself). */
async function registeredScope(provider: Provider, clientId: unknown): Promise<string | undefined> {
  if (typeof clientId !== 'string' || clientId === '') return undefined;
  try {
    return (await provider.Client.find(clientId))?.scope;
  } catch {
    return undefined;
  }
}
