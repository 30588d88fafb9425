// A client identified by the https URL of its client ID metadata document: the server fetches
// the document (here through an injected fetcher, no network), names the client from it on the
// consent page, and issues tokens the API takes. A document URL whose host resolves to a private
// address is never fetched.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as client from 'openid-client';
import type { Browser } from 'playwright-core';
import {
  authorizationUrl, consentInBrowser, FormBrowser, INSECURE, loopbackApp, signedUpUser, startAuthorization,
} from '../../helpers/oauth.ts';
import { browserSkipReason, launchChromium } from '../../helpers/browser.ts';
import { buildForSuite } from '../../helpers/server.ts';

const CLIENT_ID = 'https://agent.example/oauth/client.json';
const PRIVATE_CLIENT_ID = 'https://intranet.example/client.json';
/** A desktop agent's document: a loopback redirect by name, and no token_endpoint_auth_method. */
const LOOPBACK_CLIENT_ID = 'https://agent.example/oauth/desktop.json';
const SCRIPT_CLIENT_ID = 'https://agent.example/oauth/script.json';

describe('a client ID metadata document', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  const fetched: string[] = [];
  const document = JSON.stringify({
    client_id: CLIENT_ID, client_name: 'Remote agent', redirect_uris: ['http://127.0.0.1/callback'],
    token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
  });
  const documents: Record<string, string> = {
    [CLIENT_ID]: document,
    [LOOPBACK_CLIENT_ID]: JSON.stringify({ client_id: LOOPBACK_CLIENT_ID, client_name: 'Desktop agent', redirect_uris: ['http://localhost:3334/oauth/callback'] }),
    [SCRIPT_CLIENT_ID]: JSON.stringify({ client_id: SCRIPT_CLIENT_ID, redirect_uris: ['javascript:alert(1)//'], token_endpoint_auth_method: 'none' }),
  };
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await browser.close();
    await app.close();
  });
  const suite = buildForSuite({
    publicUrl: true,
    overrides: {
      oauthFetch: {
        resolve: async (host) => (host === 'intranet.example' ? ['10.0.0.7'] : ['93.184.216.34']),
        fetch: async (url) => {
          fetched.push(url);
          const found = documents[url];
          return found !== undefined
            ? new Response(found, { headers: { 'content-type': 'application/json', 'cache-control': 'max-age=600' } })
            : new Response('{}', { status: 404 });
        },
      },
    },
  });
  before(async () => {
    app = await loopbackApp();
    browser = await launchChromium();
  });

  test('should connect a client named by its metadata document URL', async () => {
    const person = await signedUpUser(suite.server);
    const config = await client.discovery(new URL(suite.server.url), CLIENT_ID, { token_endpoint_auth_method: 'none' }, client.None(), INSECURE);
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(auth.url.href);
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      assert.match(await page.locator('main').innerText(), /Remote agent/);
      const callback = await consentInBrowser(page, auth.url, person.email, 'Allow', { appPort: app.port, signIn: false });
      const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
      const whoami = await suite.server.api('GET', '/whoami', { token: tokens.access_token });
      assert.equal(whoami.status, 200);
      assert.equal(whoami.body.token.name, 'Remote agent');
      assert.equal(whoami.body.source, 'oauth');
    } finally {
      await context.close();
    }
    // Fetched once, then cached.
    assert.deepEqual(fetched.filter((u) => u === CLIENT_ID).length, 1);
  });

  test('should never fetch a document whose host resolves to a private address', async () => {
    const url = new URL(`${suite.server.url}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: PRIVATE_CLIENT_ID, response_type: 'code', redirect_uri: app.redirectUri, scope: 'decks:read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256',
    }).toString();
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
    assert.ok(!fetched.includes(PRIVATE_CLIENT_ID));
  });

  test('should take a document with a loopback redirect by name, on any port, and no method as a public client', async () => {
    const person = await signedUpUser(suite.server);
    const config = await client.discovery(new URL(suite.server.url), LOOPBACK_CLIENT_ID, { token_endpoint_auth_method: 'none' }, client.None(), INSECURE);
    const resource = `${suite.server.url}/api/v1`;
    const redirect = `http://localhost:${app.port}/oauth/callback`;
    const auth = await authorizationUrl(config, { redirect_uri: redirect, scope: 'decks:read', resource });
    const callback = await new FormBrowser(suite.server.url).authorize(auth.url, person.email, 'allow');
    assert.equal(`${callback.origin}${callback.pathname}`, redirect);
    // No secret: the code is exchanged as a public client.
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/whoami', { token: tokens.access_token })).body.token.name, 'Desktop agent');
  });

  test('should refuse a document whose redirect is a script', async () => {
    const response = await startAuthorization(suite.server, { client_id: SCRIPT_CLIENT_ID, redirect_uri: 'javascript:alert(1)//', scope: 'decks:read' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
    assert.ok(fetched.includes(SCRIPT_CLIENT_ID));
  });
});
