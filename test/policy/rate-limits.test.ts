import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, deckBody, type ApiResponse, manualClock, buildForSuite } from '../helpers/server.ts';

// A fixed clock: the windows are UTC minutes and days, so the test must not straddle a boundary.
const START = Date.parse('2030-03-01T12:00:30.000Z');
const SECONDS_TO_MIDNIGHT = 12 * 3600 - 30;

function retryAfter(res: ApiResponse): number {
  const value = res.headers.get('retry-after') ?? '';
  assert.match(value, /^\d+$/, `Retry-After is an integer: ${value}`);
  return Number(value);
}

describe('per-token rate limits with the default configuration', () => {
  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '', RATE_LIMIT_PER_DAY: '' } });

  test('should announce 60 per minute and 2000 per day in RateLimit-Policy', async () => {
    const user = await suite.server.user();
    const res = await suite.server.api('GET', '/whoami', { token: user.token });
    assert.equal(res.headers.get('ratelimit-policy'), '"minute";q=60;w=60, "day";q=2000;w=86400');
    assert.match(res.headers.get('ratelimit') ?? '', /^"minute";r=59;t=\d+$/);
  });
});

describe('per-token rate limits (3 per minute, 5 per day)', () => {
  const time = manualClock(START);
  let email: string;
  let deckId: string;
  let cardId: string;
  let ownerToken: string;

  async function freshToken(): Promise<string> {
    return (await suite.server.token(email, ['decks:read', 'decks:write'])).token;
  }

  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_DAY: '5' }, overrides: { clock: time.clock } });
  before(async () => {
    const owner = await suite.server.user();
    email = owner.email;
    ownerToken = owner.token;
    ({ deckId } = await createDeck(suite.server, owner.token));
    cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[0].id;
  });

  test('should count down RateLimit for the window nearest exhaustion, then answer 429 with Retry-After', async () => {
    time.ms = START;
    const token = await freshToken();
    for (const remaining of [2, 1, 0]) {
      const res = await suite.server.api('GET', '/whoami', { token });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-policy'), '"minute";q=3;w=60, "day";q=5;w=86400');
      assert.equal(res.headers.get('ratelimit'), `"minute";r=${remaining};t=30`);
    }
    const limited = await suite.server.api('GET', '/whoami', { token });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
    assert.equal(retryAfter(limited), 30);
    assert.equal(limited.headers.get('ratelimit'), '"minute";r=0;t=30');
    assert.equal(limited.headers.get('ratelimit-policy'), '"minute";q=3;w=60, "day";q=5;w=86400');
  });

  test('should not count rejected requests against the day window', async () => {
    time.ms = START;
    const token = await freshToken();
    for (let i = 0; i < 3; i++) assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    for (let i = 0; i < 3; i++) assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 429);
    time.ms = START + 60_000;
    // Had the three 429s counted, the day's 5 would be spent already.
    const fourth = await suite.server.api('GET', '/whoami', { token });
    assert.equal(fourth.status, 200);
    assert.equal(fourth.headers.get('ratelimit'), `"day";r=1;t=${SECONDS_TO_MIDNIGHT - 60}`);
    const fifth = await suite.server.api('GET', '/whoami', { token });
    assert.equal(fifth.status, 200);
    assert.equal(fifth.headers.get('ratelimit'), `"day";r=0;t=${SECONDS_TO_MIDNIGHT - 60}`);
    const sixth = await suite.server.api('GET', '/whoami', { token });
    assert.equal(sixth.status, 429);
    assert.equal(sixth.body.error.code, 'RATE_LIMITED');
    assert.equal(retryAfter(sixth), SECONDS_TO_MIDNIGHT - 60);
  });

  test('should answer Retry-After until the day resets when the minute and the day are both spent', async () => {
    time.ms = START + 30 * 60_000;
    const token = await freshToken();
    for (let i = 0; i < 2; i++) assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    time.ms += 60_000;
    // Three more: the minute's 3 and the day's 5 are spent by the same call.
    for (let i = 0; i < 3; i++) assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    const limited = await suite.server.api('GET', '/whoami', { token });
    assert.equal(limited.status, 429);
    const untilMidnight = SECONDS_TO_MIDNIGHT - 31 * 60;
    // Waiting out the minute would only meet another 429: the bucket resets with the day.
    assert.equal(retryAfter(limited), untilMidnight);
    assert.deepEqual(limited.body.error.details, { window: 'day', limit: 5 });
    assert.equal(limited.headers.get('ratelimit'), `"day";r=0;t=${untilMidnight}`);
  });

  test('should give Retry-After of at least 1 second just before the window resets', async () => {
    time.ms = Date.parse('2030-03-01T12:00:59.600Z');
    const token = await freshToken();
    for (let i = 0; i < 3; i++) await suite.server.api('GET', '/whoami', { token });
    const limited = await suite.server.api('GET', '/whoami', { token });
    assert.equal(limited.status, 429);
    assert.equal(retryAfter(limited), 1);
    time.ms = Date.parse('2030-03-01T12:01:00.000Z');
    assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
  });

  test('should keep separate buckets per token', async () => {
    time.ms = START + 5 * 60_000;
    const spent = await freshToken();
    for (let i = 0; i < 3; i++) await suite.server.api('GET', '/whoami', { token: spent });
    assert.equal((await suite.server.api('GET', '/whoami', { token: spent })).status, 429);
    const other = await freshToken();
    const res = await suite.server.api('GET', '/whoami', { token: other });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('ratelimit'), '"minute";r=2;t=30');
  });

  test('should send the rate-limit headers on error responses of authenticated calls', async () => {
    time.ms = START + 10 * 60_000;
    const token = await freshToken();
    const missing = await suite.server.api('GET', '/decks/dck_missing', { token });
    assert.equal(missing.status, 404);
    assert.equal(missing.headers.get('ratelimit'), '"minute";r=2;t=30');
    const readOnly = (await suite.server.token(email, ['decks:read'])).token;
    const forbidden = await suite.server.api('PATCH', `/decks/${deckId}`, { token: readOnly, json: { title: 'x' } });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.headers.get('ratelimit-policy'), '"minute";q=3;w=60, "day";q=5;w=86400');
  });

  test('should answer 429 on every route and leave the deck untouched', async () => {
    time.ms = START + 20 * 60_000;
    const before = await suite.server.api('GET', `/decks/${deckId}`, { token: ownerToken });
    const requests = [
      ['GET', '/decks', undefined],
      ['GET', '/decks/capacity', undefined],
      ['GET', `/decks/${deckId}`, undefined],
      ['PATCH', `/decks/${deckId}`, { title: 'Renamed' }],
      ['POST', `/decks/${deckId}/cards`, { cards: [{ front: 'q', back: 'a' }] }],
      ['PATCH', `/decks/${deckId}/cards/${cardId}`, { front: 'changed' }],
      ['POST', '/decks/import', deckBody(1)],
      ['POST', `/decks/import?mode=update&targetDeckId=${deckId}`, deckBody(1)],
    ] as const;
    for (const [method, path, json] of requests) {
      time.ms += 24 * 3600_000; // a new day, so each token starts with full buckets
      const token = await freshToken();
      for (let i = 0; i < 3; i++) assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
      const res = await suite.server.api(method, path, { token, json });
      assert.equal(res.status, 429, `${method} ${path}`);
      assert.equal(res.body.error.code, 'RATE_LIMITED');
      assert.ok(retryAfter(res) >= 1);
    }
    time.ms += 24 * 3600_000;
    const afterwards = await suite.server.api('GET', `/decks/${deckId}`, { token: await freshToken() });
    assert.equal(afterwards.text, before.text);
    time.ms += 24 * 3600_000;
    const list = await suite.server.api('GET', '/decks', { token: await freshToken() });
    assert.equal(list.body.items.length, 1);
  });
});
