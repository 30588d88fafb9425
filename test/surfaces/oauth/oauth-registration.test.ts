// Dynamic client registration as clients in the wild do it (DECISIONS "OAuth 2.1"): each kind of
// redirect allowed (loopback on any port, https, a native app's own scheme) and each refused; RFC
// 7591's default method (client_secret_basic, with a secret that works) and public clients (no
// secret); the body handed to oidc-provider as the stream it reads, with the JSON guard and limit
// kept; consent clicked in Chromium where a person would click.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as client from 'openid-client';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  authorizationUrl, consentInBrowser, INSECURE, loopbackApp, registerClient, signedUpUser, startAuthorization,
} from '../../helpers/oauth.ts';
import { browserSkipReason, launchChromium } from '../../helpers/browser.ts';
import { buildForSuite } from '../../helpers/server.ts';

// oidc-provider warns through console.warn; every line this process prints that way is kept.
const warnings: string[] = [];
const warn = console.warn.bind(console);
console.warn = (...args: unknown[]) => {
  warnings.push(args.map(String).join(' '));
  warn(...args);
};

const ALLOWED = {
  'loopback by name': 'http://localhost:3334/oauth/callback',
  'loopback IPv4 without a port': 'http://127.0.0.1/callback',
  'loopback IPv6': 'http://[::1]:8080/callback',
  https: 'https://app.example/oauth/callback',
  'a private-use scheme with an authority': 'cursor://anysphere.cursor-retrieval/oauth/callback',
  'a reverse-domain private-use scheme': 'com.example.app:/oauth2redirect',
};

const REFUSED = {
  javascript: 'javascript:alert(document.domain)//',
  data: 'data:text/html,<script>alert(1)</script>',
  file: 'file:///etc/passwd',
  vbscript: 'vbscript:msgbox(1)',
  blob: 'blob:https://app.example/0b9f6a1e-1f7c-4c1b-9d2a-3c7f1d9e8a01',
  about: 'about:blank',
  'http to another host': 'http://app.example/callback',
  'http to a host named like loopback': 'http://localhost.evil.example/callback',
  'http to a private address': 'http://10.0.0.8/callback',
  websocket: 'wss://app.example/callback',
};

describe('dynamic client registration', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { email: string };
  let signedIn = false;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await context.close();
    await browser.close();
    await app.close();
  });
  const suite = buildForSuite({ env: { OAUTH_REGISTRATIONS_PER_MINUTE: '1000' }, publicUrl: true });
  before(async () => {
    [browser, app] = await Promise.all([launchChromium(), loopbackApp()]);
    context = await browser.newContext();
    page = await context.newPage();
    person = await signedUpUser(suite.server);
  });

  /** Signs in on the first authorization only, then clicks Allow. */
  async function allow(url: URL): Promise<URL> {
    const callback = await consentInBrowser(page, url, person.email, 'Allow', { appPort: app.port, signIn: !signedIn });
    signedIn = true;
    return callback;
  }

  for (const [kind, uri] of Object.entries(ALLOWED)) {
    test(`should register a redirect URI that is ${kind}, and start an authorization with it`, async () => {
      const registered = await registerClient(suite.server, { client_name: kind, redirect_uris: [uri], token_endpoint_auth_method: 'none' });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      assert.deepEqual(registered.body.redirect_uris, [uri]);
      const started = await startAuthorization(suite.server, { client_id: registered.body.client_id, redirect_uri: uri, scope: 'decks:read' });
      assert.equal(started.status, 303);
      assert.match(started.headers.get('location') ?? '', /^\/oauth\/interaction\//);
    });
  }

  for (const [kind, uri] of Object.entries(REFUSED)) {
    test(`should refuse a redirect URI that is ${kind} with invalid_redirect_uri`, async () => {
      const registered = await registerClient(suite.server, { client_name: kind, redirect_uris: ['https://app.example/ok', uri], token_endpoint_auth_method: 'none' });
      assert.equal(registered.status, 400);
      assert.equal(registered.body.error, 'invalid_redirect_uri');
      assert.equal(registered.body.client_id, undefined);
    });
  }

  test('should let a loopback redirect change its port at each authorization, and nothing else', async () => {
    for (const [registeredUri, used] of [
      ['http://localhost:3334/oauth/callback', 'http://localhost:49152/oauth/callback'],
      ['http://127.0.0.1/callback', 'http://127.0.0.1:7/callback'],
      ['http://[::1]:8080/callback', 'http://[::1]:9090/callback'],
    ]) {
      const { body } = await registerClient(suite.server, { redirect_uris: [registeredUri], token_endpoint_auth_method: 'none' });
      const other = await startAuthorization(suite.server, { client_id: body.client_id, redirect_uri: used, scope: 'decks:read' });
      assert.equal(other.status, 303, used);
      // Another path, another loopback host or another scheme is another redirect.
      for (const wrong of [used.replace('/callback', '/elsewhere'), used.replace(/localhost|127\.0\.0\.1|\[::1\]/, 'app.example'), used.replace('http:', 'https:')]) {
        const refused = await startAuthorization(suite.server, { client_id: body.client_id, redirect_uri: wrong, scope: 'decks:read' });
        assert.equal(refused.status, 400, wrong);
        assert.equal(refused.headers.get('location'), null, wrong);
      }
    }
    // An https redirect matches exactly: not on another port.
    const { body } = await registerClient(suite.server, { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' });
    assert.equal((await startAuthorization(suite.server, { client_id: body.client_id, redirect_uri: 'https://app.example:8443/cb', scope: 'decks:read' })).status, 400);
  });

  test('should register without token_endpoint_auth_method as client_secret_basic, with a secret the token endpoint takes', async () => {
    const registered = await registerClient(suite.server, { client_name: 'Generic library', redirect_uris: [app.redirectUri] });
    assert.equal(registered.status, 201);
    assert.equal(registered.body.token_endpoint_auth_method, 'client_secret_basic');
    assert.equal(typeof registered.body.client_secret, 'string');
    const metadata = await (await fetch(`${suite.server.url}/.well-known/oauth-authorization-server`)).json() as client.ServerMetadata;
    const config = new client.Configuration(metadata, registered.body.client_id, registered.body.client_secret, client.ClientSecretBasic(registered.body.client_secret));
    client.allowInsecureRequests(config); // eslint-disable-line @typescript-eslint/no-deprecated -- plain http on loopback
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token })).status, 200);
    // The secret is checked: without it, or with another, no token.
    const wrong = new client.Configuration(metadata, registered.body.client_id, 'not-the-secret', client.ClientSecretBasic('not-the-secret'));
    client.allowInsecureRequests(wrong); // eslint-disable-line @typescript-eslint/no-deprecated -- plain http on loopback
    await assert.rejects(client.refreshTokenGrant(wrong, tokens.refresh_token ?? '', { resource }), (e: client.WWWAuthenticateChallengeError) => (
      e.response.status === 401 && e.cause[0]?.parameters.error === 'invalid_client'
    ));
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token ?? '', { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: refreshed.access_token })).status, 200);
  });

  test('should register token_endpoint_auth_method none as a public client, issued no secret', async () => {
    const registered = await registerClient(suite.server, { client_name: 'Agent', redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' });
    assert.equal(registered.status, 201);
    assert.equal(registered.body.token_endpoint_auth_method, 'none');
    assert.equal(registered.body.client_secret, undefined);
    const config = await client.discovery(new URL(suite.server.url), registered.body.client_id, { token_endpoint_auth_method: 'none' }, client.None(), INSECURE);
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token })).status, 200);
  });

  test('should let a client in a browser page register: a CORS preflight, then the answer readable from any origin', async () => {
    const origin = 'http://localhost:6274';
    const preflight = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type, mcp-protocol-version' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /\bPOST\b/);
    assert.equal(preflight.headers.get('access-control-allow-headers'), 'content-type, mcp-protocol-version');
    const registered = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST', headers: { origin, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'In a page', redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' }),
    });
    assert.equal(registered.status, 201);
    assert.equal(registered.headers.get('access-control-allow-origin'), '*');
    const refused = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: JSON.stringify({ redirect_uris: ['javascript:alert(1)'] }),
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('access-control-allow-origin'), '*', 'its error readable too');
  });

  test('should register client_secret_post with a secret sent in the body', async () => {
    const registered = await registerClient(suite.server, { redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'client_secret_post' });
    assert.equal(registered.status, 201);
    assert.equal(registered.body.token_endpoint_auth_method, 'client_secret_post');
    const config = await client.discovery(new URL(suite.server.url), registered.body.client_id, registered.body.client_secret, client.ClientSecretPost(registered.body.client_secret), INSECURE);
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token })).status, 200);
  });

  test('should send the code to a native app\'s own scheme after Allow, the consent page letting the form go there', async () => {
    const redirect = 'cursor://anysphere.cursor-retrieval/oauth/callback';
    const registered = await registerClient(suite.server, { client_name: 'Cursor', redirect_uris: [redirect], token_endpoint_auth_method: 'none' });
    const config = await client.discovery(new URL(suite.server.url), registered.body.client_id, { token_endpoint_auth_method: 'none' }, client.None(), INSECURE);
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: redirect, scope: 'decks:read', resource });
    const consent = await page.goto(auth.url.href);
    if (!signedIn) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Sign in' }).click();
      signedIn = true;
    }
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    assert.ok(consent);
    assert.match(await page.locator('main').innerText(), /return you to cursor:\/\/anysphere\.cursor-retrieval/);
    const csp = (await page.context().request.get(page.url())).headers()['content-security-policy'] ?? '';
    assert.match(csp, /form-action 'self' cursor:/);
    // The browser hands the last redirect to the app (Chromium has no handler for it here).
    const toApp = page.waitForResponse((r) => (r.headers().location ?? '').startsWith('cursor:'));
    await page.getByRole('button', { name: 'Allow' }).click();
    const location = new URL((await toApp).headers().location ?? '');
    assert.equal(`${location.protocol}//${location.host}${location.pathname}`, redirect);
    const tokens = await client.authorizationCodeGrant(config, location, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token })).status, 200);
  });

  test('should read a registration body without oidc-provider warning that it was parsed upstream', async () => {
    const registered = await registerClient(suite.server, { redirect_uris: ['https://app.example/cb'], token_endpoint_auth_method: 'none' });
    assert.equal(registered.status, 201);
    assert.deepEqual(warnings.filter((line) => /oidc-provider/i.test(line)), []);
  });

  test('should refuse a registration body with a key of one backslash, or a __proto__ key, before oidc-provider reads it', async () => {
    for (const [body, error] of [
      ['{"redirect_uris":["https://a.example/cb"],"\\\\":1}', 'invalid_client_metadata'],
      ['{"redirect_uris":["https://a.example/cb"],"\\u005c":1}', 'invalid_client_metadata'],
      ['{"redirect_uris":["https://a.example/cb"],"__proto__":{"token_endpoint_auth_method":"none"}}', 'invalid_request'],
      ['{"redirect_uris":', 'invalid_request'],
    ]) {
      const response = await fetch(`${suite.server.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      assert.equal(response.status, 400, body);
      assert.equal(((await response.json()) as { error: string }).error, error, body);
    }
  });

  test('should refuse a registration body over 56 KiB with 413 before reading it whole', async () => {
    const body = JSON.stringify({ redirect_uris: ['https://a.example/cb'], client_name: 'x'.repeat(57 * 1024) });
    const response = await fetch(`${suite.server.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(response.status, 413);
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_request');
  });
});
