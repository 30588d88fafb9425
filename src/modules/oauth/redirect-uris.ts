// DECISIONS "OAuth 2.1": which redirect URIs a client may register (dynamically or in a client ID
// metadata document). A redirect is where the authorization code goes, so anything a browser would
// run, read locally or send to a stranger in clear is refused: only https, a loopback address over
// http (the agents in use listen there, RFC 8252 7.3), or a native app's private-use scheme (RFC
// 8252 7.1). Matching stays exact except for a loopback redirect's port (oidc-provider does that
// for native clients, which is what a client with such a redirect is made).

/** The hosts of a loopback redirect, as the URL parser writes them (`http://127.1` is 127.0.0.1). */
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Schemes that are never an app's own: a browser runs, reads or fetches them itself (the URL
 * standard's special schemes and the script-like ones DECISIONS names).
 */
const NOT_PRIVATE_USE: ReadonlySet<string> = new Set([
  'http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:', 'javascript:', 'data:', 'vbscript:', 'blob:', 'about:',
]);

export type RedirectKind = 'https' | 'loopback' | 'private-use';

/** The kind of an allowed redirect URI, or why it is refused. */
export function redirectKind(uri: unknown): { kind: RedirectKind } | { refused: string } {
  if (typeof uri !== 'string') return { refused: 'redirect_uris must be strings' };
  const url = URL.parse(uri);
  if (url === null) return { refused: 'redirect_uris must be absolute URIs' };
  if (url.protocol === 'https:') return { kind: 'https' };
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? { kind: 'loopback' }
      : { refused: 'an http redirect URI must be on localhost, 127.0.0.1 or [::1]; others must be https' };
  }
  if (NOT_PRIVATE_USE.has(url.protocol)) return { refused: `redirect URIs with the ${url.protocol.slice(0, -1)} scheme are not accepted` };
  return { kind: 'private-use' };
}

/**
 * What the consent page and settings name as the place a redirect returns to: the host of a web
 * or loopback redirect (with its port), the scheme of a native app's (`cursor:`), with its host
 * when it has one (`cursor://anysphere.cursor-retrieval`).
 */
export function redirectTarget(uri: string): string {
  const url = URL.parse(uri);
  if (url === null) return uri;
  if (url.protocol === 'https:' || url.protocol === 'http:') return url.host;
  return url.host === '' ? url.protocol : `${url.protocol}//${url.host}`;
}

/**
 * The CSP source that lets the consent form's redirects reach the client: browsers apply
 * form-action to every redirect after the form post, the last of which goes to the client. The
 * origin of a web or loopback redirect, the scheme of a private-use one; null for anything else.
 */
export function redirectFormSource(uri: string): string | null {
  const kind = redirectKind(uri);
  if ('refused' in kind) return null;
  const url = URL.parse(uri);
  if (url === null) return null;
  return kind.kind === 'private-use' ? url.protocol : url.origin;
}
