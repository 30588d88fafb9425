// The error envelope on every kind of failure, including the ones Fastify raises before a
// route runs (unknown route, 413, 415, malformed JSON) and a real server fault; and CORS.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { createDeck, deckBody, type ApiResponse, buildForSuite } from '../../helpers/server.ts';

const ORIGIN = 'https://any-site.example';

function assertEnvelope(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(Object.keys(res.body), ['error']);
  assert.equal(res.body.error.code, code);
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.body.error.message.length > 0);
  for (const key of Object.keys(res.body.error)) assert.ok(['code', 'message', 'requestId', 'details'].includes(key), key);
  // DECISIONS "Beyond the spec's operations": the call's X-Request-Id, in every error body.
  assert.equal(res.body.error.requestId, res.headers.get('x-request-id'), 'error.requestId is the X-Request-Id');
}

describe('error envelope', () => {
  let token: string;
  let deckId: string;
  const suite = buildForSuite({ env: { BODY_LIMIT_BYTES: '2048' }, socket: true });
  before(async () => {
    token = (await suite.server.user()).token;
    ({ deckId } = await createDeck(suite.server, token, 1));
  });

  test('should answer unknown routes with 404 NOT_FOUND, with or without a token', async () => {
    const requests: [string, string][] = [
      ['GET', '/nope'], ['GET', '/decks/x/y/z'], ['DELETE', '/nope'], ['GET', '/reviews/rev_x/nothing'],
    ];
    for (const [method, path] of requests) {
      assertEnvelope(await suite.server.api(method, path), 404, 'NOT_FOUND');
      assertEnvelope(await suite.server.api(method, path, { token }), 404, 'NOT_FOUND');
    }
    // Outside /api/v1 an unknown path is a page: the web surface's HTML 404 (test/surfaces/web/).
    const page = await suite.server.api('GET', `${suite.server.url}/definitely-not-a-page`, { token });
    assert.equal(page.status, 404);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  });

  test('should answer a known path with another method with 405 METHOD_NOT_ALLOWED, with or without a token', async () => {
    const requests: [string, string][] = [['POST', `/decks/${deckId}`], ['POST', '/whoami'], ['PUT', `/decks/${deckId}`]];
    for (const [method, path] of requests) {
      for (const options of [{}, { token }]) {
        const res = await suite.server.api(method, path, options);
        assertEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
        assert.ok((res.headers.get('allow') ?? '').includes('GET'));
      }
    }
  });

  test('should answer a literal path under another method with 405, never as a deck of that name', async () => {
    // The spec: "The literal path capacity is not a deck id"; nor are import and trash.
    const cases: [string, string, string][] = [
      ['PATCH', '/decks/capacity', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/decks/capacity', 'GET, HEAD, OPTIONS'],
      ['GET', '/decks/import', 'OPTIONS, POST'],
      ['DELETE', '/decks/trash', 'GET, HEAD, OPTIONS'],
      ['POST', '/reviews/due', 'GET, HEAD, OPTIONS'],
      ['PUT', '/decks/capacity', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      for (const options of [{}, { token }]) {
        const res = await suite.server.api(method, path, { ...options, headers: { origin: ORIGIN } });
        assertEnvelope(res, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
        assert.equal(res.headers.get('access-control-allow-origin'), '*', 'CORS as on any answer');
      }
    }
    // No concrete path fits a deeper one: it is the templated path's, as OpenAPI matches it.
    assertEnvelope(await suite.server.api('GET', '/decks/trash/cards/crd_x', { token }), 404, 'DECK_NOT_FOUND');
    // The literals' own routes, and real ids beside them, are as before.
    assert.equal((await suite.server.api('GET', '/decks/capacity', { token })).status, 200);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token })).status, 200);
    assertEnvelope(await suite.server.api('PATCH', '/decks/dck_capacity', { token, json: { title: 'x' } }), 404, 'DECK_NOT_FOUND');
  });

  test('should answer a body over BODY_LIMIT_BYTES with 413 PAYLOAD_TOO_LARGE on every body route', async () => {
    const big = deckBody(60);
    assert.ok(JSON.stringify(big).length > 2048);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token })).body.cards[0].id;
    const requests: [string, string, Record<string, unknown>][] = [
      ['POST', '/decks/import', { json: big }],
      ['POST', '/decks/import', { body: `---\nversion: 1\n---\n# Big\n\n## Front\n${'x'.repeat(3000)}\n`, headers: { 'content-type': 'text/markdown' } }],
      ['POST', `/decks/${deckId}/cards`, { json: { cards: big.cards } }],
      ['PATCH', `/decks/${deckId}`, { json: { description: 'd'.repeat(3000) } }],
      ['PATCH', `/decks/${deckId}/cards/${cardId}`, { json: { front: 'f'.repeat(3000) } }],
    ];
    for (const [method, path, options] of requests) {
      assertEnvelope(await suite.server.api(method, path, { token, ...options }), 413, 'PAYLOAD_TOO_LARGE');
    }
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    assert.equal(deck.body.cardCount, 1);
    assert.equal(deck.body.description, null);
  });

  test('should accept a body just under BODY_LIMIT_BYTES', async () => {
    const body = { deck: { title: 'Near the limit', lang: 'en', description: '' }, cards: [{ front: 'q', back: 'a' }] };
    body.deck.description = 'd'.repeat(2040 - JSON.stringify(body).length);
    assert.equal(Buffer.byteLength(JSON.stringify(body)), 2040);
    const res = await suite.server.api('POST', '/decks/import', { token, json: body });
    assert.equal(res.status, 201, res.text);
  });

  test('should answer an unsupported Content-Type with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    assertEnvelope(await suite.server.api('POST', '/decks/import', { token, body: '<deck/>', headers: { 'content-type': 'application/xml' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertEnvelope(await suite.server.api('POST', '/decks/import', { token, body: Buffer.from('{"deck":{}}') }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    assertEnvelope(await suite.server.api('PATCH', `/decks/${deckId}`, { token, body: '# T', headers: { 'content-type': 'text/markdown' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  test('should answer a long unknown deck id with 404 DECK_NOT_FOUND and one over 500 characters with 414 URI_TOO_LONG', async () => {
    assertEnvelope(await suite.server.api('GET', `/decks/dck_${'x'.repeat(300)}`, { token }), 404, 'DECK_NOT_FOUND');
    assertEnvelope(await suite.server.api('GET', `/decks/dck_${'x'.repeat(600)}`, { token }), 414, 'URI_TOO_LONG');
    assertEnvelope(await suite.server.api('GET', `/reviews/rev_${'x'.repeat(600)}`, { token }), 414, 'URI_TOO_LONG');
  });

  test('should treat an empty JSON body as no body: 400 BAD_REQUEST where a body is needed', async () => {
    assertEnvelope(await suite.server.api('POST', '/decks/import', { token, body: '', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    assertEnvelope(await suite.server.api('PATCH', `/decks/${deckId}`, { token, body: '  ', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
  });

  test('should answer a JSON null body, which parses, with 400 SCHEMA_INVALID, not as an empty body', async () => {
    for (const [method, path] of [['POST', '/decks/import'], ['PATCH', `/decks/${deckId}`], ['POST', '/reviews']] as const) {
      const res = await suite.server.api(method, path, { token, body: 'null', headers: { 'content-type': 'application/json' } });
      assertEnvelope(res, 400, 'SCHEMA_INVALID');
      assert.match(res.body.error.message, /must be object/);
    }
  });

  test('should answer malformed JSON with 400 BAD_REQUEST', async () => {
    for (const body of ['{', '{"deck": }', 'nul', '{"a":1}}']) {
      assertEnvelope(await suite.server.api('POST', '/decks/import', { token, body, headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    }
  });

  test('should send X-Request-Id on error responses, and the same id as error.requestId beside code and message', async () => {
    const res = await suite.server.api('GET', '/decks/dck_missing', { token });
    assertEnvelope(res, 404, 'DECK_NOT_FOUND');
    assert.match(res.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(res.body.error).slice(0, 3), ['code', 'message', 'requestId']);
    const other = await suite.server.api('GET', '/decks/dck_missing', { token });
    assert.notEqual(other.body.error.requestId, res.body.error.requestId, 'one id per call');
  });
});

describe('a server fault', () => {
  let token: string;
  let deckId: string;
  const suite = buildForSuite();
  before(async () => {
    token = (await suite.server.user()).token;
    ({ deckId } = await createDeck(suite.server, token, 2));
    // A rename rather than a drop: it works on SQLite and PostgreSQL alike, whatever references cards.
    await sql`alter table cards rename to cards_gone`.execute(suite.server.app.services.db);
  });

  test('should answer 500 INTERNAL_ERROR with a generic message and no stack or SQL', async () => {
    const requests: [string, string, Record<string, unknown>][] = [
      ['GET', `/decks/${deckId}`, {}],
      ['GET', `/decks/${deckId}`, { headers: { accept: 'text/markdown' } }],
      ['POST', `/decks/${deckId}/cards`, { json: { cards: [{ front: 'q' }] } }],
      ['POST', '/decks/import', { json: deckBody(1) }],
    ];
    for (const [method, path, options] of requests) {
      const res = await suite.server.api(method, path, { token, ...options });
      assertEnvelope(res, 500, 'INTERNAL_ERROR');
      assert.equal(res.body.error.details, undefined);
      assert.equal(res.body.error.message, 'Internal server error');
      assert.doesNotMatch(res.text, /cards|select|insert|sqlite|table|stack|\.ts\b|\bat\s/i);
    }
  });

  test('should keep serving requests that do not touch the broken table', async () => {
    const list = await suite.server.api('GET', '/decks', { token });
    assert.equal(list.status, 200);
    assert.equal(list.body.items[0].id, deckId);
  });
});

describe('CORS', () => {
  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '2' }, socket: true });

  const list = (value: string | null) => (value ?? '').split(',').map((v) => v.trim().toLowerCase()).filter(Boolean);

  test('should answer a preflight from any origin allowing the API headers', async () => {
    for (const origin of [ORIGIN, 'http://localhost:5173', 'null']) {
      const res = await fetch(`${suite.server.base}/decks/dck_x/cards`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key, if-match' },
      });
      assert.ok(res.status === 204 || res.status === 200, String(res.status));
      const allowOrigin = res.headers.get('access-control-allow-origin');
      assert.ok(allowOrigin === '*' || allowOrigin === origin, String(allowOrigin));
      const headers = list(res.headers.get('access-control-allow-headers'));
      for (const h of ['authorization', 'content-type', 'idempotency-key', 'if-match']) assert.ok(headers.includes(h), `${h} in ${headers}`);
      const methods = list(res.headers.get('access-control-allow-methods'));
      for (const m of ['get', 'post', 'patch']) assert.ok(methods.includes(m), `${m} in ${methods}`);
    }
  });

  test('should allow DELETE in a preflight, so a browser may delete a deck or a card', async () => {
    for (const path of ['/decks/dck_x', '/decks/dck_x/cards/crd_x']) {
      const res = await fetch(`${suite.server.base}${path}`, {
        method: 'OPTIONS',
        headers: { origin: ORIGIN, 'access-control-request-method': 'DELETE', 'access-control-request-headers': 'authorization, if-match' },
      });
      assert.equal(res.status, 204);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      const methods = list(res.headers.get('access-control-allow-methods'));
      assert.ok(methods.includes('delete'), `delete in ${methods}`);
    }
  });

  test('should expose the rate-limit, Retry-After and Idempotent-Replayed headers', async () => {
    const res = await suite.server.api('GET', '/whoami', { token: suite.user.token, headers: { origin: ORIGIN } });
    assert.equal(res.headers.get('access-control-allow-origin'), '*');
    const exposed = list(res.headers.get('access-control-expose-headers'));
    for (const h of ['ratelimit', 'ratelimit-policy', 'retry-after', 'idempotent-replayed']) assert.ok(exposed.includes(h), `${h} in ${exposed}`);
  });

  test('should carry Access-Control-Allow-Origin on 401, 429 and 404 responses', async () => {
    const unauthorized = await suite.server.api('GET', '/decks', { headers: { origin: ORIGIN } });
    assert.equal(unauthorized.status, 401);
    assert.equal(unauthorized.headers.get('access-control-allow-origin'), '*');
    const { token: limited } = await suite.server.user();
    await suite.server.api('GET', '/whoami', { token: limited });
    await suite.server.api('GET', '/whoami', { token: limited });
    const tooMany = await suite.server.api('GET', '/whoami', { token: limited, headers: { origin: ORIGIN } });
    assert.equal(tooMany.status, 429);
    assert.equal(tooMany.headers.get('access-control-allow-origin'), '*');
    const missingDeck = await suite.server.api('GET', '/decks/dck_missing', { token: suite.user.token, headers: { origin: ORIGIN } });
    assert.equal(missingDeck.headers.get('access-control-allow-origin'), '*');
    const unknownRoute = await suite.server.api('GET', '/no-such-route', { headers: { origin: ORIGIN } });
    assert.equal(unknownRoute.status, 404);
    assert.equal(unknownRoute.headers.get('access-control-allow-origin'), '*');
  });

  test('should send no CORS headers outside the API', async () => {
    const res = await fetch(`${suite.server.url}/healthz`, { headers: { origin: ORIGIN } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), null);
  });
});
