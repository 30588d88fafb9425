// What the authorization server and the API refuse, each case on its own: a wrong PKCE verifier,
// a replayed or expired code, a token used at another resource, an expired access token, scopes
// widened at refresh, a person who denies, and an app the person disconnected. (No PKCE, plain
// PKCE and a redirect mismatch are in oauth-server.test.ts.)
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import * as client from 'openid-client';
import { storedId } from '../../../src/modules/oauth/oauth-adapter.ts';
import { purgeExpiredEntities, REVOKED_ACCESS_TOKEN } from '../../../src/modules/oauth/oauth.repository.ts';
import { authorizationUrl, FormBrowser, loopbackApp, registerFromResourceMetadata, signedUpUser } from '../../helpers/oauth.ts';
import { manualClock, buildForSuite } from '../../helpers/server.ts';
import { waitFor } from '../../scale/cluster.ts';

const isError = (code: string) => (e: client.ResponseBodyError) => e.error === code;

describe('OAuth refusals', () => {
  const clock = manualClock();
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { userId: string; email: string };
  let config: client.Configuration;
  let api: string;
  let mcp: string;
  let browser: FormBrowser;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await app.close();
  });
  const suite = buildForSuite({ overrides: { clock: clock.clock }, publicUrl: true });
  before(async () => {
    app = await loopbackApp();
    person = await signedUpUser(suite.server);
    config = await registerFromResourceMetadata(suite.server, { client_name: 'Plugin', redirect_uris: ['http://127.0.0.1/callback'] });
    api = `${suite.server.url}/api/v1`;
    mcp = `${suite.server.url}/mcp`;
  });
  beforeEach(() => { browser = new FormBrowser(suite.server.url); });

  async function code(params: { scope?: string; resource?: string } = {}, decision: 'allow' | 'deny' = 'allow', scopes?: string[]) {
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: params.scope ?? 'decks:read', resource: params.resource ?? api });
    const callback = await browser.authorize(auth.url, person.email, decision, scopes);
    return { ...auth, callback };
  }

  async function tokens(params: { scope?: string; resource?: string } = {}) {
    const auth = await code(params);
    return client.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource: params.resource ?? api });
  }

  test('should refuse a code exchanged with the wrong PKCE verifier', async () => {
    const auth = await code();
    await assert.rejects(
      client.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: client.randomPKCECodeVerifier(), expectedState: auth.state }, { resource: api }),
      isError('invalid_grant'),
    );
  });

  test('should refuse a code used twice', async () => {
    const auth = await code();
    const checks = { pkceCodeVerifier: auth.verifier, expectedState: auth.state };
    await client.authorizationCodeGrant(config, auth.callback, checks, { resource: api });
    await assert.rejects(client.authorizationCodeGrant(config, auth.callback, checks, { resource: api }), isError('invalid_grant'));
  });

  test('should refuse an expired code', async () => {
    const auth = await code();
    // Sixty seconds pass: the stored code's expiry, as oidc-provider reads it, is in the past.
    const id = storedId('AuthorizationCode', auth.callback.searchParams.get('code') ?? '');
    const row = await suite.server.app.services.db.selectFrom('oauth_entities').select('payload').where('model', '=', 'AuthorizationCode').where('id', '=', id).executeTakeFirstOrThrow();
    const payload = { ...JSON.parse(row.payload) as Record<string, unknown>, exp: Math.floor(Date.now() / 1000) - 1 };
    await suite.server.app.services.db.updateTable('oauth_entities').set({ payload: JSON.stringify(payload) }).where('model', '=', 'AuthorizationCode').where('id', '=', id).execute();
    await assert.rejects(
      client.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource: api }),
      isError('invalid_grant'),
    );
  });

  test('should refuse at the API a token asked for the MCP endpoint, and at MCP one asked for the API', async () => {
    const forMcp = await tokens({ resource: mcp });
    const response = await suite.server.api('GET', '/decks', { token: forMcp.access_token });
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const forApi = await tokens({ resource: api });
    assert.equal((await suite.server.api('GET', '/decks', { token: forApi.access_token })).status, 200);
    // And the other way round: the MCP endpoint refuses the API's token and takes its own.
    const mcpCall = (token: string) => fetch(mcp, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const refusedAtMcp = await mcpCall(forApi.access_token);
    assert.equal(refusedAtMcp.status, 401);
    assert.match(refusedAtMcp.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    assert.equal((await mcpCall(forMcp.access_token)).status, 200);
  });

  test('should refuse an access token after its hour', async () => {
    const issued = await tokens();
    assert.equal((await suite.server.api('GET', '/decks', { token: issued.access_token })).status, 200);
    const before = clock.ms;
    // An hour (and a second) after the token was issued.
    clock.ms = Date.now() + 3601 * 1000;
    try {
      const response = await suite.server.api('GET', '/decks', { token: issued.access_token });
      assert.equal(response.status, 401);
      assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    } finally {
      clock.ms = before;
    }
  });

  test('should refuse a refresh that asks for more scopes than were granted', async () => {
    const issued = await tokens({ scope: 'decks:read' });
    await assert.rejects(client.refreshTokenGrant(config, issued.refresh_token ?? '', { scope: 'decks:read decks:write', resource: api }), isError('invalid_scope'));
  });

  test('should keep a refresh token that a refused resource did not spend, and refuse the refresh with invalid_target', async () => {
    const issued = await tokens({ scope: 'decks:read' });
    for (const resource of [mcp, 'https://elsewhere.example/api']) {
      await assert.rejects(client.refreshTokenGrant(config, issued.refresh_token ?? '', { resource }), isError('invalid_target'));
    }
    const refreshed = await client.refreshTokenGrant(config, issued.refresh_token ?? '', { resource: api });
    assert.equal((await suite.server.api('GET', '/decks', { token: refreshed.access_token })).status, 200);
    assert.equal((await suite.server.api('GET', '/decks', { token: issued.access_token })).status, 200);
  });

  test('should refuse a revoked access token with TOKEN_REVOKED, and one never issued with UNAUTHORIZED', async () => {
    const issued = await tokens({ scope: 'decks:read' });
    assert.equal((await suite.server.api('GET', '/decks', { token: issued.access_token })).status, 200);
    await client.tokenRevocation(config, issued.access_token);
    const refused = await waitFor(5000, () => suite.server.api('GET', '/decks', { token: issued.access_token }), (r) => r.status === 401);
    assert.equal(refused.body.error.code, 'TOKEN_REVOKED');
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const unknown = await suite.server.api('GET', '/decks', { token: issued.access_token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) });
    assert.equal(unknown.status, 401);
    assert.equal(unknown.body.error.code, 'UNAUTHORIZED');
  });

  test('should grant every OAuth scope, narrowed by the person, to a request that names none', async () => {
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, resource: api });
    assert.equal(auth.url.searchParams.get('scope'), null);
    const callback = await browser.authorize(auth.url, person.email, 'allow', ['decks:read', 'reviews:read']);
    assert.equal(callback.searchParams.get('error'), null);
    const issued = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource: api });
    const whoami = await suite.server.api('GET', '/whoami', { token: issued.access_token });
    assert.deepEqual(whoami.body.scopes, ['decks:read', 'reviews:read']);
  });

  test('should send access_denied to the app when the person denies', async () => {
    const auth = await code({}, 'deny');
    assert.equal(auth.callback.searchParams.get('error'), 'access_denied');
    assert.equal(auth.callback.searchParams.get('code'), null);
  });

  test('should refuse a disconnected app at the API within 5 seconds, and its refresh token', async () => {
    const issued = await tokens({ scope: 'decks:read reviews:read' });
    assert.equal((await suite.server.api('GET', '/decks', { token: issued.access_token })).status, 200);
    const whoami = await suite.server.api('GET', '/whoami', { token: issued.access_token });
    const grantId = whoami.body.token.id as string;
    const apps = await browser.request('/settings/apps');
    const html = await apps.text();
    assert.match(html, /Plugin/);
    assert.match(html, /decks:read, reviews:read/);
    const disconnect = await browser.request(`/settings/apps/${grantId}/disconnect`, { form: { _csrf: FormBrowser.csrfOf(html) } });
    assert.equal(disconnect.status, 303);
    const refused = await waitFor(5000, () => suite.server.api('GET', '/decks', { token: issued.access_token }), (r) => r.status === 401);
    assert.equal(refused.status, 401);
    await assert.rejects(client.refreshTokenGrant(config, issued.refresh_token ?? '', { resource: api }), isError('invalid_grant'));
    assert.doesNotMatch(await (await browser.request('/settings/apps')).text(), new RegExp(grantId));
  });

  test('should count the calls of every token of one grant in the same rate-limit bucket', async () => {
    const first = await tokens({ scope: 'decks:read' });
    const remaining = (response: { headers: Headers }) => Number(/r=(\d+)/.exec(response.headers.get('ratelimit') ?? '')?.[1]);
    const before = remaining(await suite.server.api('GET', '/whoami', { token: first.access_token }));
    const second = await client.refreshTokenGrant(config, first.refresh_token ?? '', { resource: api });
    assert.notEqual(second.access_token, first.access_token);
    assert.equal(remaining(await suite.server.api('GET', '/whoami', { token: second.access_token })), before - 1);
  });

  // Last: the purge runs at a time far ahead, and takes every other expired row of this server along.
  test('should keep a revoked access token for 30 days past its expiry, then purge it', async () => {
    const issued = await tokens();
    await client.tokenRevocation(config, issued.access_token);
    const { db } = suite.server.app.services;
    const id = storedId('AccessToken', issued.access_token);
    const model = async () => (await db.selectFrom('oauth_entities').select('model').where('id', '=', id).executeTakeFirst())?.model;
    assert.equal(await model(), REVOKED_ACCESS_TOKEN);
    const expiry = Date.now() + 3600 * 1000;
    await purgeExpiredEntities(db, new Date(expiry + 29 * 86_400_000));
    assert.equal(await model(), REVOKED_ACCESS_TOKEN);
    await purgeExpiredEntities(db, new Date(expiry + 31 * 86_400_000));
    assert.equal(await model(), undefined);
  });
});
