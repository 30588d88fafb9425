// The sign-in and sign-up throttles under concurrency (DECISIONS: sign-in throttled per account and
// per client address; sign-up per client address), over HTTP on the store the run uses (npm test
// runs it on SQLite with the in-process counters and on PostgreSQL + Redis). The count and the
// check are one step before the password hash, so a burst sent at once computes at most the
// throttle's number of hashes; the hashes computed are read from the app's hasher.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type TestServer, buildForSuite } from '../../helpers/server.ts';
import { alertText, newEmail, WebClient, type PageResponse } from '../../helpers/web.ts';

const PASSWORD = 'correct horse battery';

/** Clients that have each read the form (and hold its CSRF token), ready to post at once. */
async function formsRead(server: TestServer, page: string, n: number): Promise<WebClient[]> {
  return Promise.all(Array.from({ length: n }, async () => {
    const client = new WebClient(server.url);
    await client.get(page);
    return client;
  }));
}

/** Resolves once `count` of `pending` have settled (or all have). */
function settled(pending: Promise<unknown>[], count: number): Promise<void> {
  let done = 0;
  return new Promise((resolve) => {
    if (count <= 0) resolve();
    for (const p of pending) void p.finally(() => { if (++done >= count) resolve(); });
  });
}

const statuses = (responses: PageResponse[]) => responses.map((r) => r.status).sort((x, y) => x - y);

describe('sign-in throttle per account, under concurrency', () => {
  const LIMIT = 5;
  const suite = buildForSuite({ env: { SIGNIN_ATTEMPTS_PER_MINUTE: String(LIMIT), FAILED_AUTH_PER_MINUTE: '1000' }, socket: true });
  const hashes = () => suite.server.app.services.passwords.computed;

  test('should compute at most the throttle\'s number of hashes for 30 concurrent sign-ins and refuse the right password once it is spent', async () => {
    const email = newEmail('burst');
    assert.equal((await new WebClient(suite.server.url).signUp(email)).status, 303);
    const clients = await formsRead(suite.server, '/signin', 30);
    const before = hashes();
    const wrong = clients.slice(0, 29).map((c, i) => c.post('/signin', { email, password: `wrong password ${i}` }));
    // The right one goes last, while the first ones are still being checked.
    await settled(wrong, 29 - LIMIT);
    const right = await clients[29].post('/signin', { email, password: PASSWORD });
    const answered = await Promise.all(wrong);
    assert.ok(hashes() - before <= LIMIT, `${hashes() - before} hashes computed for a throttle of ${LIMIT}`);
    assert.deepEqual(statuses(answered), [...Array<number>(LIMIT).fill(400), ...Array<number>(29 - LIMIT).fill(429)]);
    assert.equal(right.status, 429);
    assert.match(right.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(alertText(right.html) ?? '', /Too many failed sign-ins/);
    assert.equal(right.location, null);
  });

  test('should not charge a sign-in with the right password against the account', async () => {
    const email = newEmail('refund');
    assert.equal((await new WebClient(suite.server.url).signUp(email)).status, 303);
    for (let i = 0; i < LIMIT - 1; i++) assert.equal((await new WebClient(suite.server.url).signIn(email, `wrong password ${i}`)).status, 400);
    // One attempt is left: each right one uses it and gives it back.
    for (let i = 0; i < 3; i++) assert.equal((await new WebClient(suite.server.url).signIn(email, PASSWORD)).status, 303, `sign-in ${i}`);
    assert.equal((await new WebClient(suite.server.url).signIn(email, 'wrong password again')).status, 400);
    assert.equal((await new WebClient(suite.server.url).signIn(email, PASSWORD)).status, 429);
  });
});

describe('sign-in throttle per client address, under concurrency', () => {
  const LIMIT = 4;
  const suite = buildForSuite({ env: { SIGNIN_ATTEMPTS_PER_MINUTE: '1000', FAILED_AUTH_PER_MINUTE: String(LIMIT) }, socket: true });

  test('should compute at most the throttle\'s number of hashes for 20 concurrent sign-ins to different accounts from one address', async () => {
    const emails = Array.from({ length: 20 }, () => newEmail('spray'));
    // The decoy hash of unknown emails is made once, before the burst.
    await suite.server.app.services.passwords.decoy();
    const clients = await formsRead(suite.server, '/signin', 20);
    const before = suite.server.app.services.passwords.computed;
    const answered = await Promise.all(clients.map((c, i) => c.post('/signin', { email: emails[i], password: PASSWORD })));
    const computed = suite.server.app.services.passwords.computed - before;
    assert.ok(computed <= LIMIT, `${computed} hashes computed for a throttle of ${LIMIT}`);
    assert.deepEqual(statuses(answered), [...Array<number>(LIMIT).fill(400), ...Array<number>(20 - LIMIT).fill(429)]);
  });
});

describe('sign-up throttle per client address', () => {
  const LIMIT = 3;
  const suite = buildForSuite({ env: { SIGNUP_ATTEMPTS_PER_HOUR: String(LIMIT) }, socket: true });

  test('should count sign-ups that made an account or found it taken, not those refused for their input, and refuse the next with 429', async () => {
    const taken = newEmail('taken');
    assert.equal((await new WebClient(suite.server.url).signUp(taken)).status, 303);
    const again = await new WebClient(suite.server.url).signUp(taken);
    assert.equal(again.status, 409);
    assert.equal(alertText(again.html), 'An account with this email already exists. Sign in instead, or use another email.');
    // A password outside the rule never reaches the hash: not counted.
    for (let i = 0; i < 5; i++) assert.equal((await new WebClient(suite.server.url).signUp(newEmail('short'), 'short')).status, 400);
    assert.equal((await new WebClient(suite.server.url).signUp(newEmail('third'))).status, 303);
    const probe = await new WebClient(suite.server.url).signUp(taken);
    assert.equal(probe.status, 429);
    assert.match(probe.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(alertText(probe.html) ?? '', /Too many sign-ups from this address/);
    assert.equal((await new WebClient(suite.server.url).signUp(newEmail('fourth'))).status, 429);
  });
});

describe('sign-up throttle under concurrency', () => {
  const LIMIT = 3;
  const suite = buildForSuite({ env: { SIGNUP_ATTEMPTS_PER_HOUR: String(LIMIT) }, socket: true });

  test('should make at most the throttle\'s number of accounts from 12 concurrent sign-ups', async () => {
    const clients = await formsRead(suite.server, '/signup', 12);
    const before = suite.server.app.services.passwords.computed;
    const answered = await Promise.all(clients.map((c) => c.post('/signup', { email: newEmail('rush'), password: PASSWORD })));
    assert.ok(suite.server.app.services.passwords.computed - before <= LIMIT);
    assert.deepEqual(statuses(answered), [...Array<number>(LIMIT).fill(303), ...Array<number>(12 - LIMIT).fill(429)]);
  });
});

describe('password hashing with bounded concurrency', () => {
  const suite = buildForSuite({ env: { PASSWORD_HASH_COST: '15', PASSWORD_HASH_CONCURRENCY: '1', PASSWORD_HASH_QUEUE: '1', SIGNIN_ATTEMPTS_PER_MINUTE: '1000', FAILED_AUTH_PER_MINUTE: '1000' }, socket: true });

  test('should refuse sign-ins beyond the queue at once with a 503 page and Retry-After and serve again after', async () => {
    const email = newEmail('queue');
    assert.equal((await new WebClient(suite.server.url).signUp(email)).status, 303);
    const clients = await formsRead(suite.server, '/signin', 8);
    const before = suite.server.app.services.passwords.computed;
    const answered = await Promise.all(clients.map((c, i) => c.post('/signin', { email, password: `wrong password ${i}` })));
    const busy = answered.filter((r) => r.status === 503);
    assert.ok(busy.length >= 1, `statuses ${statuses(answered).join(',')}`);
    assert.equal(busy.length + answered.filter((r) => r.status === 400).length, 8);
    assert.equal(suite.server.app.services.passwords.computed - before, 8 - busy.length);
    for (const refused of busy) {
      assert.match(refused.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
      assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(refused.html, /Temporarily unavailable/);
    }
    assert.equal((await new WebClient(suite.server.url).signIn(email, PASSWORD)).status, 303);
  });
});
