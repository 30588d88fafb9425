// The web pages on two instances sharing one PostgreSQL and one Redis: a session made on one is
// valid on the other, signing out on one ends it on both, the sign-in throttle counts across both,
// (30 sign-ins sent at once compute at most its number of hashes), and a token revoked in settings
// on one is refused by the API on the other within 5 seconds.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { buildApp, type FlashdeckApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { dropStore, redisNamespaceFor, storeEnvFor, TEST_ENV } from '../helpers/backend.ts';
import { tempDataDir } from '../helpers/process.ts';
import { newEmail, WebClient } from '../helpers/web.ts';
import { SKIP_UNLESS_POSTGRES_REDIS } from './cluster.ts';

const PASSWORD = 'correct horse battery';

describe('web sessions across two instances on PostgreSQL + Redis', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  const dataDir = tempDataDir();
  const namespace = redisNamespaceFor(dataDir);
  const apps: FlashdeckApp[] = [];
  let a: string;
  let b: string;

  async function start(): Promise<string> {
    const config = loadConfig({ ...TEST_ENV, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SIGNIN_ATTEMPTS_PER_MINUTE: '3', ...storeEnvFor(dataDir) });
    const app = await buildApp(config, { logger: false, redisNamespace: namespace });
    apps.push(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  before(async () => { [a, b] = [await start(), await start()]; });
  after(async () => {
    for (const app of apps) await app.close();
    await dropStore(dataDir, namespace);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** The same browser (one cookie jar) talking to instance `url`. */
  function on(url: string, from: WebClient): WebClient {
    const client = new WebClient(url);
    for (const [k, v] of from.cookies) client.cookies.set(k, v);
    return client;
  }

  test('should accept a session made on one instance on the other, and end it on both at sign-out', async () => {
    const onA = new WebClient(a);
    assert.equal((await onA.signUp(newEmail('two'))).status, 303);
    const onB = on(b, onA);
    assert.equal((await onB.get('/settings/tokens')).status, 200);
    // A form rendered on B posts to A: the CSRF key and the session are shared.
    await onB.get('/settings/tokens');
    const onAgain = on(a, onB);
    const created = await onAgain.post('/settings/tokens', { name: 'across', scopes: 'decks:read' }, onB.csrf);
    assert.equal(created.status, 303);
    // The new token, sealed by A for this session, is shown once by B.
    const shown = await on(b, onAgain).get(created.location ?? '');
    assert.match(shown.html, /id="new-token"[^>]*value="svc_pat_/);
    await onB.get('/');
    assert.equal((await onB.post('/signout', {})).status, 303);
    assert.equal((await onA.get('/settings/tokens')).status, 303);
  });

  test('should count failed sign-ins of one account on both instances', async () => {
    const email = newEmail('throttle');
    assert.equal((await new WebClient(a).signUp(email)).status, 303);
    assert.equal((await new WebClient(a).signIn(email, 'wrong one')).status, 400);
    assert.equal((await new WebClient(b).signIn(email, 'wrong two')).status, 400);
    assert.equal((await new WebClient(a).signIn(email, 'wrong three')).status, 400);
    const refused = await new WebClient(b).signIn(email, PASSWORD);
    assert.equal(refused.status, 429);
  });

  test('should compute at most 3 hashes for 30 concurrent sign-ins of one account spread over both instances, and refuse the right password', async () => {
    const email = newEmail('burst');
    assert.equal((await new WebClient(a).signUp(email)).status, 303);
    const clients = await Promise.all(Array.from({ length: 30 }, async (_, i) => {
      const client = new WebClient(i % 2 === 0 ? a : b);
      await client.get('/signin');
      return client;
    }));
    const hashes = () => apps.reduce((sum, app) => sum + app.services.passwords.computed, 0);
    const before = hashes();
    const wrong = clients.slice(0, 29).map((c, i) => c.post('/signin', { email, password: `wrong password ${i}` }));
    // The right one goes last, once most of the wrong ones have been answered.
    let answered = 0;
    await new Promise<void>((resolve) => { for (const p of wrong) void p.finally(() => { if (++answered === 26) resolve(); }); });
    const right = await clients[29].post('/signin', { email, password: PASSWORD });
    const statuses = (await Promise.all(wrong)).map((r) => r.status).sort((x, y) => x - y);
    assert.ok(hashes() - before <= 3, `${hashes() - before} hashes on two instances for a throttle of 3`);
    assert.deepEqual(statuses, [400, 400, 400, ...Array<number>(26).fill(429)]);
    assert.equal(right.status, 429);
  });

  test('should have the API on the other instance refuse a token revoked in settings within 5 seconds', async () => {
    const web = new WebClient(a);
    await web.signUp(newEmail('revoke'));
    const { token, tokenId } = await web.createToken('two-instance', ['decks:read']);
    const whoami = () => fetch(`${b}/api/v1/whoami`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.status);
    assert.equal(await whoami(), 200);
    await web.get(`/settings/tokens/${tokenId}/revoke`);
    assert.equal((await web.post(`/settings/tokens/${tokenId}/revoke`, {})).status, 303);
    const start = Date.now();
    let status = await whoami();
    while (status !== 401 && Date.now() - start < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = await whoami();
    }
    assert.equal(status, 401);
  });
});
