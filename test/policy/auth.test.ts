import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { generatePat } from '../../src/modules/tokens/token-format.ts';
import { revokeToken } from '../../src/modules/tokens/tokens.service.ts';
import { createDeck, deckBody, type ApiResponse, type TestServer, manualClock, buildForSuite } from '../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';
const METADATA = `resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource"`;

// Every token-authenticated route, with a request that would succeed for the deck's owner.
function routes(deckId: string, cardId: string): { name: string; method: string; path: string; json?: unknown }[] {
  return [
    { name: 'GET /whoami', method: 'GET', path: '/whoami' },
    { name: 'GET /decks', method: 'GET', path: '/decks' },
    { name: 'GET /decks/capacity', method: 'GET', path: '/decks/capacity' },
    { name: 'GET /decks/{deckId}', method: 'GET', path: `/decks/${deckId}` },
    { name: 'PATCH /decks/{deckId}', method: 'PATCH', path: `/decks/${deckId}`, json: { title: 'Renamed' } },
    { name: 'POST /decks/{deckId}/cards', method: 'POST', path: `/decks/${deckId}/cards`, json: { cards: [{ front: 'q', back: 'a' }] } },
    { name: 'PATCH /decks/{deckId}/cards/{cardId}', method: 'PATCH', path: `/decks/${deckId}/cards/${cardId}`, json: { front: 'changed' } },
    { name: 'POST /decks/import', method: 'POST', path: '/decks/import', json: deckBody(1) },
    { name: 'POST /decks/import?mode=update', method: 'POST', path: `/decks/import?mode=update&targetDeckId=${deckId}`, json: deckBody(1) },
  ];
}

function assertUnauthorized(res: ApiResponse, code: 'UNAUTHORIZED' | 'TOKEN_REVOKED', tokenPresented: boolean): void {
  assert.equal(res.status, 401, res.text);
  assert.equal(res.body.error.code, code);
  const challenge = res.headers.get('www-authenticate') ?? '';
  assert.match(challenge, /^Bearer /);
  assert.ok(challenge.includes(METADATA), challenge);
  assert.equal(challenge.includes('error="invalid_token"'), tokenPresented, challenge);
}

async function firstCardId(server: TestServer, token: string, deckId: string): Promise<string> {
  const deck = await server.api('GET', `/decks/${deckId}`, { token });
  return deck.body.cards[0].id;
}

describe('authentication', () => {
  let owner: { token: string; tokenId: string; email: string };
  let deckId: string;
  let cardId: string;
  const suite = buildForSuite({ env: { PUBLIC_URL, FAILED_AUTH_PER_MINUTE: '1000' }, socket: true });
  before(async () => {
    owner = await suite.server.user();
    ({ deckId } = await createDeck(suite.server, owner.token));
    cardId = await firstCardId(suite.server, owner.token, deckId);
  });

  test('should answer 401 UNAUTHORIZED without error= when no Authorization header is sent, on every route', async () => {
    for (const route of routes(deckId, cardId)) {
      const res = await suite.server.api(route.method, route.path, { json: route.json });
      assertUnauthorized(res, 'UNAUTHORIZED', false);
    }
  });

  test('should answer 401 UNAUTHORIZED with error="invalid_token" for a header that is not Bearer', async () => {
    for (const header of ['Basic dXNlcjpwYXNz', `Token ${owner.token}`, 'Bearer', 'Bearer ', `Bearer ${owner.token} extra`]) {
      const res = await suite.server.api('GET', '/whoami', { headers: { authorization: header } });
      assertUnauthorized(res, 'UNAUTHORIZED', true);
    }
  });

  test('should answer 401 UNAUTHORIZED for a malformed token', async () => {
    for (const token of ['not-a-token', 'svc_pat_short_secret', owner.token.replace('svc_pat_', 'svc_oat_'), `${owner.token}x`]) {
      assertUnauthorized(await suite.server.api('GET', '/whoami', { token }), 'UNAUTHORIZED', true);
    }
  });

  test('should answer 401 UNAUTHORIZED for a token whose checksum does not hold', async () => {
    const last = owner.token.at(-1);
    const mistyped = owner.token.slice(0, -1) + (last === 'a' ? 'b' : 'a');
    assertUnauthorized(await suite.server.api('GET', '/whoami', { token: mistyped }), 'UNAUTHORIZED', true);
  });

  test('should answer 401 UNAUTHORIZED for a well-formed token the service never issued', async () => {
    const { token } = generatePat();
    assertUnauthorized(await suite.server.api('GET', '/whoami', { token }), 'UNAUTHORIZED', true);
  });

  test('should never accept a token in the query string', async () => {
    for (const name of ['access_token', 'token']) {
      const res = await suite.server.api('GET', `/whoami?${name}=${owner.token}`);
      assertUnauthorized(res, 'UNAUTHORIZED', false);
    }
  });

  test('should answer 401 TOKEN_REVOKED on every route once the token is revoked', async () => {
    const { token, tokenId } = await suite.server.token(owner.email, ['decks:read', 'decks:write']);
    assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    await revokeToken(suite.server.app.services, { tokenId });
    for (const route of routes(deckId, cardId)) {
      const res = await suite.server.api(route.method, route.path, { token, json: route.json });
      assertUnauthorized(res, 'TOKEN_REVOKED', true);
    }
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(deck.body.title, 'Test deck');
    assert.equal(deck.body.cardCount, 3);
  });

  test('should refuse two Authorization headers with 400 BAD_REQUEST, whichever comes first, and write nothing', async () => {
    const { token: other } = await suite.server.user();
    for (const [first, second] of [[owner.token, owner.token], [owner.token, other], [owner.token, 'not-a-token'], ['not-a-token', owner.token]]) {
      const res = await suite.server.api('GET', '/whoami', { token: first, repeat: [['authorization', `Bearer ${second}`]] });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
      assert.equal(res.headers.get('ratelimit'), null, 'not admitted, so not counted');
    }
    const patch = await suite.server.api('PATCH', `/decks/${deckId}`, { token: owner.token, json: { title: 'Twice' }, repeat: [['Authorization', `Bearer ${owner.token}`]] });
    assert.equal(patch.status, 400);
    assert.equal(patch.body.error.code, 'BAD_REQUEST');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.title, 'Test deck');
  });

  test('should keep other tokens of the user working after one is revoked', async () => {
    const { tokenId } = await suite.server.token(owner.email, ['decks:read']);
    await revokeToken(suite.server.app.services, { tokenId });
    assert.equal((await suite.server.api('GET', '/whoami', { token: owner.token })).status, 200);
  });
});

describe('token expiry', () => {
  const time = manualClock('2030-03-01T12:00:00.000Z');
  const suite = buildForSuite({ env: { PUBLIC_URL }, overrides: { clock: time.clock } });

  test('should answer 401 TOKEN_REVOKED once the token has expired', async () => {
    const user = await suite.server.user();
    const created = await suite.server.app.admin.createToken({ email: user.email, name: 'week', scopes: ['decks:read'], expiresDays: 7 });
    const expiresAt = Date.parse(created.summary.expiresAt as string);
    assert.equal(expiresAt, time.ms + 7 * 86_400_000);

    time.ms = expiresAt - 1000;
    assert.equal((await suite.server.api('GET', '/decks', { token: created.token })).status, 200);
    time.ms = expiresAt + 1000;
    assertUnauthorized(await suite.server.api('GET', '/decks', { token: created.token }), 'TOKEN_REVOKED', true);
    assertUnauthorized(await suite.server.api('GET', '/whoami', { token: created.token }), 'TOKEN_REVOKED', true);
  });

  test('should expire a default token after 90 days', async () => {
    const user = await suite.server.user();
    time.ms += 89 * 86_400_000;
    assert.equal((await suite.server.api('GET', '/whoami', { token: user.token })).status, 200);
    time.ms += 2 * 86_400_000;
    assertUnauthorized(await suite.server.api('GET', '/whoami', { token: user.token }), 'TOKEN_REVOKED', true);
  });
});

describe('failed-authentication throttling', () => {
  const suite = buildForSuite({ env: { PUBLIC_URL, FAILED_AUTH_PER_MINUTE: '3' } });

  test('should answer 429 RATE_LIMITED to an address after too many failed attempts, even with a valid token', async () => {
    const user = await suite.server.user();
    assert.equal((await suite.server.api('GET', '/whoami', { token: user.token })).status, 200);
    for (let i = 0; i < 3; i++) {
      const guess = await suite.server.api('GET', '/whoami', { token: generatePat().token });
      assert.equal(guess.status, 401);
    }
    const blocked = await suite.server.api('GET', '/whoami', { token: user.token });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.error.code, 'RATE_LIMITED');
    const retryAfter = blocked.headers.get('retry-after') ?? '';
    assert.match(retryAfter, /^\d+$/);
    assert.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= 60, retryAfter);
    const guess = await suite.server.api('GET', '/decks', { token: generatePat().token });
    assert.equal(guess.status, 429);
  });
});
