// What keeps dynamic registration from filling the store (DECISIONS "OAuth 2.1"): registrations
// are throttled per client address (429 in OAuth's shape, with Retry-After), and a registration
// no person allowed within 24 hours is removed by the hourly purge, on either store. The app's
// clock is moved by hand.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { purgeExpiredOauth } from '../../../src/modules/oauth/oauth.service.ts';
import { FormBrowser, loopbackApp, registerClient, signedUpUser, startAuthorization } from '../../helpers/oauth.ts';
import { manualClock, buildForSuite } from '../../helpers/server.ts';

describe('the registration throttle', () => {
  const clock = manualClock('2031-03-04T10:00:05Z');
  const suite = buildForSuite({ env: { OAUTH_REGISTRATIONS_PER_MINUTE: '3', OAUTH_REGISTRATIONS_PER_DAY: '5' }, overrides: { clock: clock.clock }, publicUrl: true });

  const metadata = { redirect_uris: ['http://localhost:3334/oauth/callback'], token_endpoint_auth_method: 'none' };

  test('should refuse a 4th registration from one address within a minute with 429 too_many_requests and Retry-After', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await registerClient(suite.server, metadata)).status, 201);
    const refused = await registerClient(suite.server, metadata);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'too_many_requests');
    assert.equal(typeof refused.body.error_description, 'string');
    assert.equal(refused.headers.get('retry-after'), '55');
    assert.equal(refused.headers.get('cache-control'), 'no-store');
    assert.equal(refused.body.client_id, undefined);
    // A refused body is not read, even a hostile one.
    const hostile = await fetch(`${suite.server.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"\\\\":1}' });
    assert.equal(hostile.status, 429);
  });

  test('should throttle nothing but registration', async () => {
    assert.equal((await fetch(`${suite.server.url}/.well-known/oauth-authorization-server`)).status, 200);
    assert.equal((await startAuthorization(suite.server, { client_id: 'unknown', redirect_uri: 'https://a.example/cb' })).status, 400);
  });

  test('should take registrations again in the next minute, up to the day\'s number', async () => {
    clock.ms += 60_000;
    for (let i = 0; i < 2; i++) assert.equal((await registerClient(suite.server, metadata)).status, 201);
    const refused = await registerClient(suite.server, metadata);
    assert.equal(refused.status, 429);
    assert.equal(refused.body.error, 'too_many_requests');
    // Until the next UTC day.
    assert.equal(Number(refused.headers.get('retry-after')), Math.ceil((Date.parse('2031-03-05T00:00:00Z') - clock.ms) / 1000));
  });
});

describe('registrations no one used', () => {
  const clock = manualClock();
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await app.close();
  });
  const suite = buildForSuite({ overrides: { clock: clock.clock }, publicUrl: true });
  before(async () => {
    app = await loopbackApp();
  });

  async function authorizes(clientId: string): Promise<boolean> {
    const started = await startAuthorization(suite.server, { client_id: clientId, redirect_uri: app.redirectUri, scope: 'decks:read' });
    return started.status === 303;
  }

  test('should remove a registration no person allowed within 24 hours, and keep one that was allowed', async () => {
    const person = await signedUpUser(suite.server);
    const unused = (await registerClient(suite.server, { client_name: 'Abandoned', redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' })).body.client_id as string;
    const denied = (await registerClient(suite.server, { client_name: 'Denied', redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' })).body.client_id as string;
    const used = (await registerClient(suite.server, { client_name: 'Allowed', redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' })).body.client_id as string;
    const browser = new FormBrowser(suite.server.url);
    for (const [clientId, decision] of [[used, 'allow'], [denied, 'deny']] as const) {
      const started = await startAuthorization(suite.server, { client_id: clientId, redirect_uri: app.redirectUri, scope: 'decks:read', state: 's' });
      const callback = await browser.authorize(new URL(started.url), person.email, decision);
      assert.equal(callback.searchParams.has('code'), decision === 'allow', decision);
    }

    clock.ms += 23 * 3_600_000;
    await purgeExpiredOauth(suite.server.app.services);
    for (const clientId of [unused, denied, used]) assert.equal(await authorizes(clientId), true, clientId);

    clock.ms += 3_600_000 + 1000;
    await purgeExpiredOauth(suite.server.app.services);
    assert.equal(await authorizes(unused), false);
    assert.equal(await authorizes(denied), false);
    assert.equal(await authorizes(used), true);
    // Gone means gone: the registration's own record too (oidc-provider answers invalid_client).
    const page = await startAuthorization(suite.server, { client_id: unused, redirect_uri: app.redirectUri, scope: 'decks:read' });
    assert.equal(page.status, 400);
    assert.match(await page.text(), /client is invalid|could not be connected/);

    clock.ms += 30 * 86_400_000;
    await purgeExpiredOauth(suite.server.app.services);
    assert.equal(await authorizes(used), true);
  });
});
