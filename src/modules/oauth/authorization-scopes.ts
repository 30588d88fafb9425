// The scopes of an authorization request as the service takes them (DECISIONS "OAuth 2.1"): values
// it does not know are dropped (a client written for another service asks for `profile` or
// `offline_access`), and a request left with no OAuth scope gets the default, as one that names
// none does (RFC 6749 3.3), so the person is asked about what the app can actually be given.
import { OAUTH_SCOPES, type OauthScope } from '../identity/scopes.ts';

/** OpenID Connect's scope: the app learns which account signed in (an ID token, `sub`). */
export const OPENID = 'openid';

export type AuthorizationScope = OauthScope | typeof OPENID;

export function isOauthScope(value: string): value is OauthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

function words(scope: string | undefined): string[] {
  return scope === undefined ? [] : scope.split(' ').filter((s) => s !== '');
}

/**
 * The scope string an authorization request goes on with: `openid` if asked, then the OAuth scopes
 * asked for; the default when none is left, which is the client's registered OAuth scopes if it
 * registered any, else all four.
 */
export function authorizationScope(asked: string | undefined, registered: string | undefined): string {
  const values = new Set(words(asked));
  const oauth = OAUTH_SCOPES.filter((s) => values.has(s));
  const registeredOauth = words(registered).filter(isOauthScope);
  const granted = oauth.length > 0 ? oauth : registeredOauth.length > 0 ? OAUTH_SCOPES.filter((s) => registeredOauth.includes(s)) : [...OAUTH_SCOPES];
  return [...(values.has(OPENID) ? [OPENID] : []), ...granted].join(' ');
}

/** The scopes of a scope string the service knows, in its order (the consent page's checkboxes). */
export function knownScopes(scope: string | undefined): AuthorizationScope[] {
  const values = new Set(words(scope));
  return [...(values.has(OPENID) ? [OPENID] as const : []), ...OAUTH_SCOPES.filter((s) => values.has(s))];
}
