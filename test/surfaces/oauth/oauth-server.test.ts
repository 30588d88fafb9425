// The authorization server's endpoints before anyone signs in: metadata that agrees with the
// protected-resource document, dynamic registration and its redirect rule, PKCE S256 only, and the
// outbound fetch of client ID metadata documents (SSRF guard, size limit, JSON guard).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { guardedFetch, isSpecialAddress } from '../../../src/modules/oauth/metadata-fetch.ts';
import { registerFromResourceMetadata } from '../../helpers/oauth.ts';
import { buildForSuite } from '../../helpers/server.ts';

describe('the authorization server', () => {
  const suite = buildForSuite({ publicUrl: true });

  test('should publish RFC 8414 metadata that agrees with the protected-resource metadata', async () => {
    const prm = await (await fetch(`${suite.server.url}/.well-known/oauth-protected-resource`)).json() as Record<string, unknown>;
    const as = await (await fetch(`${suite.server.url}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
    assert.deepEqual(prm.authorization_servers, [suite.server.url]);
    assert.equal(as.issuer, suite.server.url);
    assert.equal(as.authorization_endpoint, `${suite.server.url}/oauth/authorize`);
    assert.equal(as.token_endpoint, `${suite.server.url}/oauth/token`);
    assert.equal(as.revocation_endpoint, `${suite.server.url}/oauth/revoke`);
    assert.equal(as.registration_endpoint, `${suite.server.url}/oauth/register`);
    assert.deepEqual(as.code_challenge_methods_supported, ['S256']);
    assert.ok((as.token_endpoint_auth_methods_supported as string[]).includes('none'));
    assert.equal(as.client_id_metadata_document_supported, true);
    assert.deepEqual(as.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(as.response_types_supported, ['code']);
    for (const scope of ['decks:read', 'decks:write', 'reviews:read', 'reviews:write']) {
      assert.ok((as.scopes_supported as string[]).includes(scope), scope);
    }
    // Neither DPoP nor pushed authorization requests: the API takes plain bearer tokens.
    assert.equal(as.dpop_signing_alg_values_supported, undefined);
    assert.equal(as.pushed_authorization_request_endpoint, undefined);
  });

  test('should write PUBLIC_URL into every endpoint of the metadata whatever Host the request names', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      for (const host of ['evil.example', '127.0.0.1:1', 'localhost']) {
        const res = await suite.server.app.inject({ method: 'GET', url: path, headers: { host } });
        assert.equal(res.statusCode, 200, `${path} ${host}`);
        const urls = Object.entries(res.json<Record<string, unknown>>()).filter(([, v]) => typeof v === 'string' && /^https?:/.test(v));
        assert.ok(urls.length >= 5, path);
        for (const [key, url] of urls) assert.ok((url as string).startsWith(`${suite.server.url}/`) || url === suite.server.url, `${path} with Host ${host}: ${key} = ${url as string}`);
      }
    }
  });

  test('should name in the metadata the revocation endpoint\'s client authentication, public clients included', async () => {
    const as = await (await fetch(`${suite.server.url}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
    // RFC 8414 2: left out, it means client_secret_basic only, which a public client cannot use.
    assert.deepEqual(as.revocation_endpoint_auth_methods_supported, as.token_endpoint_auth_methods_supported);
    assert.ok((as.revocation_endpoint_auth_methods_supported as string[]).includes('none'));
  });

  test('should answer the CORS preflight of the authorization-server metadata it lets any origin read', async () => {
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const read = await fetch(`${suite.server.url}${path}`, { headers: { origin: 'https://anywhere.example' } });
      assert.equal(read.status, 200, path);
      assert.ok(read.headers.get('access-control-allow-origin'), path);
      // The MCP SDK's discovery sends MCP-Protocol-Version, so a browser asks first.
      const preflight = await fetch(`${suite.server.url}${path}`, {
        method: 'OPTIONS', headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      assert.equal(preflight.status, 204, path);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(preflight.headers.get('access-control-allow-headers'), 'mcp-protocol-version', path);
    }
  });

  test('should list in the metadata of both resources exactly the scopes a client may ask the authorization server for', async () => {
    for (const path of ['', '/api/v1', '/mcp']) {
      const prm = await (await fetch(`${suite.server.url}/.well-known/oauth-protected-resource${path}`)).json() as Record<string, unknown>;
      assert.deepEqual(prm.scopes_supported, ['decks:read', 'decks:write', 'reviews:read', 'reviews:write'], path);
      // A client that registers with them (as the MCP SDK's client does) is registered.
      const registered = await fetch(`${suite.server.url}/oauth/register`, {
        method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none', scope: (prm.scopes_supported).join(' ') }),
      });
      assert.equal(registered.status, 201, await registered.text());
    }
  });

  test('should register a client with a loopback redirect dynamically', async () => {
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Plugin', redirect_uris: ['http://127.0.0.1/callback'] });
    const metadata = config.clientMetadata();
    assert.equal(metadata.client_name, 'Plugin');
    assert.equal(metadata.token_endpoint_auth_method, 'none');
    assert.equal(typeof config.clientMetadata().client_id, 'string');
  });

  test('should refuse to register a plain http redirect that is not loopback', async () => {
    const response = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Bad', redirect_uris: ['http://app.example/callback'], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_redirect_uri');
  });

  test('should refuse a registration body with a key of one backslash before parsing it', async () => {
    const response = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"redirect_uris":["https://a.example/cb"],"\\\\":1}',
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_client_metadata');
  });

  test('should answer an unknown client with an error page that carries the security headers of every page', async () => {
    const response = await fetch(`${suite.server.url}/oauth/authorize?client_id=abc&response_type=code&redirect_uri=https://elsewhere.example/cb`, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/);
    assert.match(csp, /script-src 'self'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'same-origin');
    const html = await response.text();
    assert.match(html, /The app could not be connected/);
    assert.doesNotMatch(html, /<script/i);
  });

  test('should neither advertise nor serve an end-session endpoint, which could not end the person\'s session', async () => {
    const as = await (await fetch(`${suite.server.url}/.well-known/oauth-authorization-server`)).json() as Record<string, unknown>;
    assert.equal(as.end_session_endpoint, undefined);
    // It answered with oidc-provider's page: an inline script and none of the pages' headers.
    const response = await fetch(`${suite.server.url}/oauth/session/end`, { redirect: 'manual' });
    assert.equal(response.status, 404);
    assert.doesNotMatch(await response.text(), /<script/i);
  });

  describe('authorization requests', () => {
    let clientId: string;
    const redirect = 'http://127.0.0.1:7/callback';
    before(async () => {
      const config = await registerFromResourceMetadata(suite.server, { client_name: 'Plugin', redirect_uris: ['http://127.0.0.1/callback'] });
      clientId = config.clientMetadata().client_id;
    });

    async function authorize(params: Record<string, string>): Promise<Response> {
      const url = new URL(`${suite.server.url}/oauth/authorize`);
      for (const [k, v] of Object.entries({ client_id: clientId, response_type: 'code', redirect_uri: redirect, scope: 'decks:read', ...params })) url.searchParams.set(k, v);
      return fetch(url, { redirect: 'manual' });
    }

    function errorOf(response: Response): string | null {
      const location = response.headers.get('location');
      return location === null ? null : new URL(location).searchParams.get('error');
    }

    test('should refuse an authorization request without PKCE', async () => {
      const response = await authorize({});
      assert.equal(response.status, 303);
      assert.equal(errorOf(response), 'invalid_request');
    });

    test('should refuse plain PKCE', async () => {
      const response = await authorize({ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' });
      assert.equal(response.status, 303);
      assert.equal(errorOf(response), 'invalid_request');
    });

    test('should accept a loopback redirect on any port and send the browser to sign-in and consent', async () => {
      const response = await authorize({ code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      assert.equal(response.status, 303);
      assert.match(response.headers.get('location') ?? '', /^\/oauth\/interaction\/[\w-]+$/);
    });

    test('should refuse a redirect URI that does not match the registered one', async () => {
      const response = await authorize({ redirect_uri: 'http://127.0.0.1:7/elsewhere', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('location'), null);
    });

    test('should refuse a resource other than the API or the MCP endpoint', async () => {
      const response = await authorize({ resource: 'https://elsewhere.example/api', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' });
      assert.equal(errorOf(response), 'invalid_target');
    });
  });
});

describe('the fetch of client ID metadata documents', () => {
  const doc = JSON.stringify({ client_id: 'https://app.example/client.json', client_name: 'App', redirect_uris: ['https://app.example/cb'] });
  const publicHost = async () => ['93.184.216.34'];

  test('should refuse private, loopback, link-local and special addresses', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
      assert.equal(isSpecialAddress(address), true, address);
    }
    for (const address of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '::ffff:93.184.216.34']) {
      assert.equal(isSpecialAddress(address), false, address);
    }
  });

  test('should never fetch from a host that resolves to a private address', async () => {
    let fetched = false;
    const fetcher = guardedFetch({ resolve: async () => ['10.0.0.5'], fetch: async () => { fetched = true; return new Response(doc); } });
    await assert.rejects(fetcher('https://internal.example/client.json', {}), /private or special-use/);
    await assert.rejects(fetcher('https://127.0.0.1/client.json', {}), /private or special-use/);
    await assert.rejects(fetcher('https://[::1]/client.json', {}), /private or special-use/);
    assert.equal(fetched, false);
  });

  test('should refuse plain http', async () => {
    const fetcher = guardedFetch({ resolve: publicHost, fetch: async () => new Response(doc) });
    await assert.rejects(fetcher('http://app.example/client.json', {}), /https/);
  });

  test('should refuse a document over the size limit', async () => {
    const fetcher = guardedFetch({ resolve: publicHost, maxBytes: 100, fetch: async () => new Response('x'.repeat(101)) });
    await assert.rejects(fetcher('https://app.example/client.json', {}), /too large/);
  });

  test('should give up on a server that does not answer in time', async () => {
    const fetcher = guardedFetch({
      resolve: publicHost, timeoutMs: 50,
      fetch: (_url, init) => new Promise((_resolve, reject) => init.signal?.addEventListener('abort', () => reject(new Error('aborted')))),
    });
    await assert.rejects(fetcher('https://app.example/client.json', {}), /aborted/);
  });

  test('should refuse a document with a key of one backslash before anyone parses it', async () => {
    const fetcher = guardedFetch({ resolve: publicHost, fetch: async () => new Response('{"client_id":"x","\\\\":1}') });
    await assert.rejects(fetcher('https://app.example/client.json', {}), /backslash/);
  });

  test('should pass a good document on', async () => {
    const fetcher = guardedFetch({ resolve: publicHost, fetch: async () => new Response(doc, { headers: { 'cache-control': 'max-age=600' } }) });
    const response = await fetcher('https://app.example/client.json', {});
    assert.equal(await response.text(), doc);
    assert.equal(response.headers.get('cache-control'), 'max-age=600');
  });
});
