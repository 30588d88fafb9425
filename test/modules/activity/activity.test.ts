import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { listTokenActivity, type ActivityEntry } from '../../../src/modules/activity/activity.service.ts';
import { revokeToken } from '../../../src/modules/tokens/tokens.service.ts';
import { createDeck, deckBody, manualClock, type ApiResponse, type RequestOptions, type TestServer, buildForSuite } from '../../helpers/server.ts';

const AGENT = 'activity-test/1.0';

interface Expected {
  method: string;
  route: string;
  status: number;
  deckId: string | null;
  res: ApiResponse;
}

async function entriesOf(server: TestServer, tokenId: string): Promise<ActivityEntry[]> {
  await server.app.activity.flush();
  return listTokenActivity(server.app.services, { tokenId, limit: 1000 });
}

describe('activity log', () => {
  const suite = buildForSuite();

  test('should record every token call with its time, method, route, deck, status, duration, address, agent and request id', async () => {
    const user = await suite.server.user();
    const expected: Expected[] = [];
    const call = async (method: string, apiPath: string, route: string, status: number, deckId: string | null, options: RequestOptions = {}) => {
      const res = await suite.server.api(method, apiPath, { token: user.token, ...options, headers: { 'user-agent': AGENT, ...options.headers } });
      assert.equal(res.status, status, `${method} ${apiPath}: ${res.text}`);
      expected.push({ method, route, status, deckId, res });
      return res;
    };
    const startedAt = new Date().toISOString();
    await call('GET', '/whoami', '/api/v1/whoami', 200, null);
    const created = await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(2), headers: { 'user-agent': AGENT } });
    const deckId = created.body.deckId as string;
    expected.push({ method: 'POST', route: '/api/v1/decks/import', status: 201, deckId, res: created });
    await call('GET', '/decks', '/api/v1/decks', 200, null);
    const deck = await call('GET', `/decks/${deckId}`, '/api/v1/decks/:deckId', 200, deckId);
    await call('PATCH', `/decks/${deckId}`, '/api/v1/decks/:deckId', 200, deckId, { json: { title: 'renamed' } });
    await call('POST', `/decks/${deckId}/cards`, '/api/v1/decks/:deckId/cards', 200, deckId, { json: { cards: [{ front: 'f' }] } });
    const cardId = deck.body.cards[0].id as string;
    await call('PATCH', `/decks/${deckId}/cards/${cardId}`, '/api/v1/decks/:deckId/cards/:cardId', 200, deckId, { json: { back: 'new back' } });
    await call('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, '/api/v1/decks/import', 200, deckId, { json: deckBody(1) });
    await call('GET', '/decks/dck_missing', '/api/v1/decks/:deckId', 404, 'dck_missing');
    await call('PATCH', `/decks/${deckId}/cards/crd_missing`, '/api/v1/decks/:deckId/cards/:cardId', 404, deckId, { json: { front: 'x' } });
    await call('POST', '/decks/import', '/api/v1/decks/import', 400, null, { json: { deck: {}, cards: [] } });
    await call('POST', '/decks/import', '/api/v1/decks/import', 415, null, { body: 'hello', headers: { 'content-type': 'text/plain' } });
    const finishedAt = new Date().toISOString();

    const entries = await entriesOf(suite.server, user.tokenId);
    assert.equal(entries.length, expected.length);
    const byRequest = new Map(entries.map((e) => [e.requestId, e]));
    for (const want of expected) {
      const requestId = want.res.headers.get('x-request-id');
      assert.ok(requestId, 'every response names its request id');
      const entry = byRequest.get(requestId);
      assert.ok(entry, `no activity entry for ${want.method} ${want.route} (${want.status})`);
      assert.deepEqual(
        { method: entry.method, route: entry.route, status: entry.status, deckId: entry.deckId, tokenId: entry.tokenId, userId: entry.userId, userAgent: entry.userAgent },
        { method: want.method, route: want.route, status: want.status, deckId: want.deckId, tokenId: user.tokenId, userId: user.userId, userAgent: AGENT },
      );
      assert.ok(entry.at >= startedAt && entry.at <= finishedAt, `time ${entry.at} is outside the test`);
      assert.ok(Number.isInteger(entry.durationMs) && entry.durationMs >= 0);
      assert.match(entry.clientIp ?? '', /^(::ffff:)?127\.0\.0\.1$/);
    }
    // Newest first, as the owner sees them.
    assert.deepEqual(entries.map((e) => e.requestId), expected.map((e) => e.res.headers.get('x-request-id')).reverse());
  });

  test('should record a call refused for a missing scope as 403', async () => {
    const owner = await suite.server.user();
    const { deckId } = await createDeck(suite.server, owner.token, 1);
    const { token, tokenId } = await suite.server.token(owner.email, ['decks:read'], 'read only');
    const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { title: 'nope' } });
    assert.equal(res.body.error.code, 'FORBIDDEN');
    const [entry] = await entriesOf(suite.server, tokenId);
    assert.equal(entry?.status, 403);
    assert.equal(entry?.deckId, deckId);
    assert.equal(entry?.requestId, res.headers.get('x-request-id'));
  });

  test("should record a call on another user's deck as 403 under the caller's token", async () => {
    const owner = await suite.server.user();
    const other = await suite.server.user();
    const { deckId } = await createDeck(suite.server, owner.token, 1);
    const res = await suite.server.api('GET', `/decks/${deckId}`, { token: other.token });
    assert.equal(res.body.error.code, 'DECK_FORBIDDEN');
    const [entry] = await entriesOf(suite.server, other.tokenId);
    assert.equal(entry?.status, 403);
    assert.equal(entry?.userId, other.userId);
    assert.deepEqual(await entriesOf(suite.server, owner.tokenId).then((list) => list.map((e) => e.route)), ['/api/v1/decks/import']);
  });

  test('should record the deck an update import names when the import is refused', async () => {
    const user = await suite.server.user();
    const res = await suite.server.api('POST', '/decks/import?mode=update&targetDeckId=dck_missing000000000000', { token: user.token, json: deckBody(1) });
    assert.equal(res.body.error.code, 'DECK_NOT_FOUND');
    const [entry] = await entriesOf(suite.server, user.tokenId);
    assert.deepEqual({ route: entry?.route, status: entry?.status, deckId: entry?.deckId }, { route: '/api/v1/decks/import', status: 404, deckId: 'dck_missing000000000000' });
  });

  test('should record the deck a replayed create import made, as its first call was recorded', async () => {
    const user = await suite.server.user();
    const headers = { 'idempotency-key': 'activity-replay-0001' };
    const first = await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(1), headers });
    const again = await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(1), headers });
    assert.equal(first.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    const entries = await entriesOf(suite.server, user.tokenId);
    assert.deepEqual(entries.map((e) => e.deckId), [first.body.deckId, first.body.deckId]);
  });

  test('should record a call made with a revoked token as 401 under that token', async () => {
    const owner = await suite.server.user();
    const { deckId } = await createDeck(suite.server, owner.token, 1);
    const { token, tokenId } = await suite.server.token(owner.email, ['decks:read'], 'revoked soon');
    await revokeToken(suite.server.app.services, { tokenId });
    const res = await suite.server.api('GET', `/decks/${deckId}`, { token, headers: { 'user-agent': AGENT } });
    assert.equal(res.body.error.code, 'TOKEN_REVOKED');
    const entries = await entriesOf(suite.server, tokenId);
    assert.equal(entries.length, 1);
    assert.deepEqual(
      { status: entries[0]?.status, route: entries[0]?.route, deckId: entries[0]?.deckId, userId: entries[0]?.userId, userAgent: entries[0]?.userAgent, requestId: entries[0]?.requestId },
      { status: 401, route: '/api/v1/decks/:deckId', deckId, userId: owner.userId, userAgent: AGENT, requestId: res.headers.get('x-request-id') },
    );
  });

  test('should record nothing for a call without a valid token', async () => {
    const user = await suite.server.user();
    const before = await entriesOf(suite.server, user.tokenId);
    const tampered = `${user.token.slice(0, -1)}${user.token.endsWith('A') ? 'B' : 'A'}`;
    assert.equal((await suite.server.api('GET', '/whoami', { token: tampered })).status, 401);
    assert.deepEqual(await entriesOf(suite.server, user.tokenId), before);
  });
});

describe('activity log of calls no route serves', () => {
  const suite = buildForSuite({ socket: true });

  const call = (method: string, path: string, token?: string) =>
    fetch(`${suite.server.base}${path}`, { method, headers: token === undefined ? {} : { authorization: `Bearer ${token}`, 'user-agent': AGENT } });

  test('should record a token call to an unknown path as 404 and one under another method as 405, each counted against the token', async () => {
    const user = await suite.server.user();
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const before = await entriesOf(suite.server, user.tokenId);
    const answers = [
      await call('GET', '/nope/deeper', user.token), await call('PUT', '/whoami', user.token), await call('PUT', `/decks/${deckId}`, user.token),
      await call('PATCH', '/decks/capacity', user.token),
    ];
    assert.deepEqual(answers.map((r) => r.status), [404, 405, 405, 405]);
    for (const answer of answers) assert.match(answer.headers.get('ratelimit') ?? '', /r=\d+/);
    const remaining = answers.map((r) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1]));
    assert.deepEqual(remaining, [remaining[0], (remaining[0] ?? 0) - 1, (remaining[0] ?? 0) - 2, (remaining[0] ?? 0) - 3]);
    const entries = (await entriesOf(suite.server, user.tokenId)).slice(0, -before.length || undefined);
    assert.deepEqual(
      entries.map((e) => ({ method: e.method, route: e.route, status: e.status, userAgent: e.userAgent })).reverse(),
      [
        { method: 'GET', route: '/api/v1/nope/deeper', status: 404, userAgent: AGENT },
        { method: 'PUT', route: '/api/v1/whoami', status: 405, userAgent: AGENT },
        { method: 'PUT', route: '/api/v1/decks/:deckId', status: 405, userAgent: AGENT },
        { method: 'PATCH', route: '/api/v1/decks/capacity', status: 405, userAgent: AGENT },
      ],
    );
    assert.equal(entries[0]?.deckId, null, 'capacity is no deck');
    assert.deepEqual(entries.map((e) => e.requestId).reverse(), answers.map((r) => r.headers.get('x-request-id')));
  });

  test('should answer an unknown path 404 without a token or with a bad one, and record nothing', async () => {
    const user = await suite.server.user();
    const before = await entriesOf(suite.server, user.tokenId);
    const tampered = `${user.token.slice(0, -1)}${user.token.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [undefined, tampered]) {
      const answer = await call('GET', '/nope', token);
      assert.equal(answer.status, 404);
      assert.equal(answer.headers.get('ratelimit'), null);
    }
    assert.deepEqual(await entriesOf(suite.server, user.tokenId), before);
  });
});

describe('activity log of expired tokens', () => {
  const time = manualClock('2030-04-01T08:00:00.000Z');
  const suite = buildForSuite({ overrides: { clock: time.clock } });

  test('should record a call made with an expired token as 401 under that token', async () => {
    const user = await suite.server.user();
    const created = await suite.server.app.admin.createToken({ email: user.email, name: 'a week', scopes: ['decks:read'], expiresDays: 7 });
    time.ms += 8 * 86_400_000;
    const res = await suite.server.api('GET', '/whoami', { token: created.token });
    assert.equal(res.body.error.code, 'TOKEN_REVOKED');
    const [entry, ...rest] = await entriesOf(suite.server, created.summary.id);
    assert.deepEqual(rest, []);
    assert.equal(entry?.status, 401);
    assert.equal(entry?.route, '/api/v1/whoami');
    assert.equal(entry?.requestId, res.headers.get('x-request-id'));
  });
});

describe('activity log with rate limits', () => {
  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '2' } });

  test('should record a rate-limited call as 429', async () => {
    const user = await suite.server.user();
    // A minute boundary between the calls would reset the window; retry once on a fresh token then.
    for (let attempt = 0; attempt < 2; attempt++) {
      const { token, tokenId } = attempt === 0 ? user : await suite.server.token(user.email, ['decks:read'], 'second');
      const statuses = [];
      let last;
      for (let i = 0; i < 3; i++) {
        last = await suite.server.api('GET', '/decks', { token });
        statuses.push(last.status);
      }
      if (statuses[2] !== 429) continue;
      const [entry] = await entriesOf(suite.server, tokenId);
      assert.equal(entry?.status, 429);
      assert.equal(entry?.requestId, last?.headers.get('x-request-id'));
      return;
    }
    assert.fail('the third call within a minute was never refused');
  });
});

describe('activity log failures', () => {
  const suite = buildForSuite();

  test('should serve every call even when the activity log cannot be written', async () => {
    const user = await suite.server.user();
    await sql`drop table activity`.execute(suite.server.app.services.db);
    assert.equal((await suite.server.api('GET', '/whoami', { token: user.token })).status, 200);
    const { deckId } = await createDeck(suite.server, user.token, 2);
    await suite.server.app.activity.flush();
    const appended = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ front: 'still works' }] } });
    assert.equal(appended.status, 200);
    await suite.server.app.activity.flush();
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token: user.token });
    assert.equal(deck.status, 200);
    assert.equal(deck.body.cards.length, 3);
  });
});
