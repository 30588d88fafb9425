// Two instances on one store (on the PostgreSQL + Redis run: one schema, one Redis), one
// PUBLIC_URL: a person authorizes on one, the app calls the API and refreshes on the other, and a
// disconnect on the first is refused by the second within 5 seconds. Grants, codes and tokens are
// rows in the shared database, so nothing here depends on which instance a request reaches.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as client from 'openid-client';
import { buildApp, type FlashdeckApp } from '../../../src/app.ts';
import { onPostgres, redisNamespaceFor } from '../../helpers/backend.ts';
import { authorizationUrl, FormBrowser, loopbackApp, registerFromResourceMetadata, signedUpUser } from '../../helpers/oauth.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { waitFor } from '../../scale/cluster.ts';

describe('OAuth across two instances', () => {
  let b: FlashdeckApp;
  let bUrl: string;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  // Before the suite's hooks: b shares the suite's store, so it closes before the suite drops it.
  after(async () => {
    await b.close();
    await app.close();
  });
  const suite = buildForSuite({ publicUrl: true });
  before(async () => {
    app = await loopbackApp();
    b = await buildApp({ ...suite.server.config, port: 0 }, { logger: false, redisNamespace: onPostgres() ? redisNamespaceFor(suite.server.dataDir) : undefined });
    await b.listen({ port: 0, host: '127.0.0.1' });
    const address = b.server.address();
    bUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });

  async function call(base: string, token: string, path = '/whoami'): Promise<Response> {
    return fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  }

  async function refreshOn(base: string, clientId: string, refreshToken: string, resource: string): Promise<Response> {
    return fetch(`${base}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, resource }).toString(),
    });
  }

  test('should authorize on one instance and serve the API, refresh and disconnect on either', async () => {
    const person = await signedUpUser(suite.server);
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Plugin', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read decks:write', resource });
    const browser = new FormBrowser(suite.server.url);
    const callback = await browser.authorize(auth.url, person.email, 'allow');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });

    const onB = await call(bUrl, tokens.access_token);
    assert.equal(onB.status, 200);
    const whoami = await onB.json() as { source: string; token: { id: string } };
    assert.equal(whoami.source, 'oauth');

    const refreshed = await refreshOn(bUrl, config.clientMetadata().client_id, tokens.refresh_token ?? '', resource);
    assert.equal(refreshed.status, 200);
    const second = await refreshed.json() as { access_token: string; refresh_token: string };
    assert.equal((await call(suite.server.url, second.access_token)).status, 200);
    // The token rotated out on B is refused on A.
    assert.equal((await refreshOn(suite.server.url, config.clientMetadata().client_id, tokens.refresh_token ?? '', resource)).status, 400);
    // ... and that reuse revoked the grant everywhere.
    const revoked = await waitFor(5000, () => call(bUrl, second.access_token), (r) => r.status === 401);
    assert.equal(revoked.status, 401);
  });

  test('should refuse on the other instance within 5 seconds an app disconnected on one', async () => {
    const person = await signedUpUser(suite.server);
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const browser = new FormBrowser(suite.server.url);
    const tokens = await client.authorizationCodeGrant(
      config, await browser.authorize(auth.url, person.email, 'allow'), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource },
    );
    const whoami = await (await call(bUrl, tokens.access_token)).json() as { token: { id: string } };
    const html = await (await browser.request('/settings/apps')).text();
    const disconnect = await browser.request(`/settings/apps/${whoami.token.id}/disconnect`, { form: { _csrf: FormBrowser.csrfOf(html) } });
    assert.equal(disconnect.status, 303);
    const refused = await waitFor(5000, () => call(bUrl, tokens.access_token), (r) => r.status === 401);
    assert.equal(refused.status, 401);
  });
});
