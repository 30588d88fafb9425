// One request per (route, error code) that the served OpenAPI document lists, each asserting the
// exact status and code; and a check that the table keeps up with the document, so a code added to
// a route without a test fails here. The other files of this folder pin the details.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { revokeToken } from '../../../src/modules/tokens/tokens.service.ts';
import { createDeck, deckBody, type RequestOptions, buildForSuite } from '../../helpers/server.ts';

interface Fixture {
  token: string;
  readOnly: string;
  reviewsOnly: string;
  revoked: string;
  full: string;
  deckId: string;
  version: string;
  cardId: string;
  fullDeckId: string;
  otherDeckId: string;
  otherCardId: string;
}

type Trigger = (f: Fixture) => { path?: string; options: RequestOptions };

interface Operation {
  method: string;
  template: string;
  path(f: Fixture, deckId?: string, cardId?: string): string;
  /** A body the route accepts, for the codes that do not depend on it. */
  body?: unknown;
}

const OPERATIONS: Record<string, Operation> = {
  whoami: { method: 'GET', template: '/whoami', path: () => '/whoami' },
  listDecks: { method: 'GET', template: '/decks', path: () => '/decks' },
  capacity: { method: 'GET', template: '/decks/capacity', path: () => '/decks/capacity' },
  getDeck: { method: 'GET', template: '/decks/{deckId}', path: (f, d = f.deckId) => `/decks/${d}` },
  updateDeck: { method: 'PATCH', template: '/decks/{deckId}', path: (f, d = f.deckId) => `/decks/${d}`, body: { description: 'x' } },
  appendCards: { method: 'POST', template: '/decks/{deckId}/cards', path: (f, d = f.deckId) => `/decks/${d}/cards`, body: { cards: [{ front: 'q' }] } },
  updateCard: {
    method: 'PATCH', template: '/decks/{deckId}/cards/{cardId}',
    path: (f, d = f.deckId, c = f.cardId) => `/decks/${d}/cards/${c}`, body: { back: 'x' },
  },
  importDeck: { method: 'POST', template: '/decks/import', path: () => '/decks/import', body: deckBody(1) },
  getCard: { method: 'GET', template: '/decks/{deckId}/cards/{cardId}', path: (f, d = f.deckId, c = f.cardId) => `/decks/${d}/cards/${c}` },
  deleteCard: { method: 'DELETE', template: '/decks/{deckId}/cards/{cardId}', path: (f, d = f.deckId, c = f.cardId) => `/decks/${d}/cards/${c}` },
  moveCard: {
    method: 'POST', template: '/decks/{deckId}/cards/{cardId}/move',
    path: (f, d = f.deckId, c = f.cardId) => `/decks/${d}/cards/${c}/move`, body: { order: 0 },
  },
  updateCards: { method: 'PATCH', template: '/decks/{deckId}/cards', path: (f, d = f.deckId) => `/decks/${d}/cards`, body: { cards: [{ id: 'crd_x', back: 'x' }] } },
  startReview: { method: 'POST', template: '/reviews', path: () => '/reviews', body: { deckId: 'dck_x' } },
  listReviews: { method: 'GET', template: '/reviews', path: () => '/reviews' },
  listDue: { method: 'GET', template: '/reviews/due', path: () => '/reviews/due' },
  getSchedule: { method: 'GET', template: '/decks/{deckId}/schedule', path: (f, d = f.deckId) => `/decks/${d}/schedule` },
};

const json = (body: unknown, extra: Partial<RequestOptions> = {}) => ({ json: body, ...extra });
const raw = (body: string, type: string) => ({ body, headers: { 'content-type': type } });
const stale = { 'if-match': '2000-01-01T00:00:00.000Z' };
const BIG = `{"description":"${'x'.repeat(9000)}"}`;
const manyCards = (n: number) => ({ cards: Array.from({ length: n }, () => ({ front: 'q' })) });

// Codes proven elsewhere because they need a server set up for them alone.
const ELSEWHERE: Record<string, string> = {
  RATE_LIMITED: 'rate-limits.test.ts (every route)',
  INTERNAL_ERROR: 'errors-envelope.test.ts (a broken store)',
  SERVICE_UNAVAILABLE: 'the backing-service tests',
  IDEMPOTENCY_KEY_IN_USE: 'idempotency.test.ts and concurrency.test.ts',
  URI_TOO_LONG: 'errors-envelope.test.ts (an over-long path id)',
};

// (operation, code) -> the request that must produce it. UNAUTHORIZED and TOKEN_REVOKED are added for every operation below.
const twice = (f: Fixture) => ({ token: f.token, repeat: [['Authorization', `Bearer ${f.token}`]] as [string, string][] });

const TRIGGERS: Record<string, Record<string, Trigger>> = {
  whoami: { BAD_REQUEST: (f) => ({ options: twice(f) }) },
  listDecks: {
    BAD_REQUEST: (f) => ({ path: '/decks?limit=0', options: { token: f.token } }),
    FORBIDDEN: (f) => ({ options: { token: f.reviewsOnly } }),
  },
  capacity: {
    BAD_REQUEST: (f) => ({ options: twice(f) }),
    FORBIDDEN: (f) => ({ options: { token: f.reviewsOnly } }),
  },
  getDeck: {
    BAD_REQUEST: (f) => ({ options: twice(f) }),
    FORBIDDEN: (f) => ({ options: { token: f.reviewsOnly } }),
    DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}`, options: { token: f.token } }),
    DECK_NOT_FOUND: (f) => ({ path: '/decks/dck_missing', options: { token: f.token } }),
  },
  updateDeck: {
    BAD_REQUEST: (f) => ({ options: { token: f.token, ...raw('{"title":', 'application/json') } }),
    SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ title: '' }) } }),
    FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json({ title: 'x' }) } }),
    DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}`, options: { token: f.token, ...json({ title: 'x' }) } }),
    DECK_NOT_FOUND: (f) => ({ path: '/decks/dck_missing', options: { token: f.token, ...json({ title: 'x' }) } }),
    VERSION_MISMATCH: (f) => ({ options: { token: f.token, ...json({ title: 'x' }, { headers: stale }) } }),
    PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
    UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('# T', 'text/markdown') } }),
  },
  appendCards: {
    BAD_REQUEST: (f) => ({ options: { token: f.token, ...json({ cards: [{ front: 'q' }] }, { headers: { 'idempotency-key': 'short' } }) } }),
    SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ cards: [{ front: 'q', frontMedia: { imageUrl: 'http://x.example/a.png' } }] }) } }),
    TOO_MANY_CARDS: (f) => ({ path: `/decks/${f.fullDeckId}/cards`, options: { token: f.token, ...json({ cards: [{ front: 'one too many' }] }) } }),
    FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json({ cards: [{ front: 'q' }] }) } }),
    DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards`, options: { token: f.token, ...json({ cards: [{ front: 'q' }] }) } }),
    DECK_NOT_FOUND: (f) => ({ path: '/decks/dck_missing/cards', options: { token: f.token, ...json({ cards: [{ front: 'q' }] }) } }),
    IDEMPOTENCY_CONFLICT: (f) => ({ options: { token: f.token, ...json({ cards: [{ front: 'different' }] }, { headers: { 'idempotency-key': 'status-codes-append' } }) } }),
    VERSION_MISMATCH: (f) => ({ options: { token: f.token, ...json({ cards: [{ front: 'q' }] }, { headers: stale }) } }),
    PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
    UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('## Front\nq', 'text/markdown') } }),
  },
  updateCard: {
    BAD_REQUEST: (f) => ({ options: { token: f.token } }),
    SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({}) } }),
    FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json({ back: 'x' }) } }),
    DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards/${f.otherCardId}`, options: { token: f.token, ...json({ back: 'x' }) } }),
    DECK_NOT_FOUND: (f) => ({ path: `/decks/dck_missing/cards/${f.cardId}`, options: { token: f.token, ...json({ back: 'x' }) } }),
    CARD_NOT_FOUND: (f) => ({ path: `/decks/${f.deckId}/cards/${f.otherCardId}`, options: { token: f.token, ...json({ back: 'x' }) } }),
    VERSION_MISMATCH: (f) => ({ options: { token: f.token, ...json({ back: 'x' }, { headers: stale }) } }),
    PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
    UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('x', 'text/markdown') } }),
  },
  importDeck: {
    BAD_REQUEST: (f) => ({ path: '/decks/import?mode=update', options: { token: f.token, ...json(deckBody(1)) } }),
    PARSE_FAILED: (f) => ({ options: { token: f.token, ...raw('# No front matter\n', 'text/markdown') } }),
    CSV_TOO_MANY_COLUMNS: (f) => ({ path: '/decks/import?title=Wide', options: { token: f.token, ...raw(`${'a,'.repeat(150)}a\n`, 'text/csv') } }),
    CSV_UNCLOSED_QUOTE: (f) => ({ path: '/decks/import?title=Open', options: { token: f.token, ...raw('front,back\n"never closed,b\n', 'text/csv') } }),
    SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ deck: { title: 'T' }, cards: [{ front: 'q', extras: { cardType: 'image' } }] }) } }),
    TOO_MANY_CARDS: (f) => ({ options: { token: f.token, ...json({ deck: { title: 'T' }, ...manyCards(251) }) } }),
    FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json(deckBody(1)) } }),
    DECK_LIMIT_REACHED: (f) => ({ options: { token: f.full, ...json(deckBody(1)) } }),
    DECK_NOT_FOUND: (f) => ({ path: `/decks/import?mode=update&targetDeckId=${f.otherDeckId}`, options: { token: f.token, ...json(deckBody(1)) } }),
    IDEMPOTENCY_CONFLICT: (f) => ({ options: { token: f.token, ...json(deckBody(2), { headers: { 'idempotency-key': 'status-codes-import' } }) } }),
    VERSION_MISMATCH: (f) => ({ path: `/decks/import?mode=update&targetDeckId=${f.deckId}`, options: { token: f.token, ...json(deckBody(1), { headers: stale }) } }),
    PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
    UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('<deck/>', 'application/xml') } }),
  },
};

const bulk = (f: Fixture, back = 'x') => ({ cards: [{ id: f.cardId, back }] });

TRIGGERS.getCard = {
  BAD_REQUEST: (f) => ({ options: twice(f) }),
  FORBIDDEN: (f) => ({ options: { token: f.reviewsOnly } }),
  DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards/${f.otherCardId}`, options: { token: f.token } }),
  DECK_NOT_FOUND: (f) => ({ path: `/decks/dck_missing/cards/${f.cardId}`, options: { token: f.token } }),
  CARD_NOT_FOUND: (f) => ({ path: `/decks/${f.deckId}/cards/${f.otherCardId}`, options: { token: f.token } }),
};
TRIGGERS.deleteCard = {
  BAD_REQUEST: (f) => ({ options: twice(f) }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly } }),
  DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards/${f.otherCardId}`, options: { token: f.token } }),
  DECK_NOT_FOUND: (f) => ({ path: `/decks/dck_missing/cards/${f.cardId}`, options: { token: f.token } }),
  CARD_NOT_FOUND: (f) => ({ path: `/decks/${f.deckId}/cards/${f.otherCardId}`, options: { token: f.token } }),
  VERSION_MISMATCH: (f) => ({ options: { token: f.token, headers: stale } }),
};
TRIGGERS.moveCard = {
  BAD_REQUEST: (f) => ({ options: { token: f.token, ...raw('{"order":', 'application/json') } }),
  SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ order: 250 }) } }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json({ order: 0 }) } }),
  DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards/${f.otherCardId}/move`, options: { token: f.token, ...json({ order: 0 }) } }),
  DECK_NOT_FOUND: (f) => ({ path: `/decks/dck_missing/cards/${f.cardId}/move`, options: { token: f.token, ...json({ order: 0 }) } }),
  CARD_NOT_FOUND: (f) => ({ path: `/decks/${f.deckId}/cards/${f.otherCardId}/move`, options: { token: f.token, ...json({ order: 0 }) } }),
  VERSION_MISMATCH: (f) => ({ options: { token: f.token, ...json({ order: 1 }, { headers: stale }) } }),
  PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
  UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('order: 1', 'text/markdown') } }),
};
TRIGGERS.updateCards = {
  BAD_REQUEST: (f) => ({ options: { token: f.token, ...json(bulk(f), { headers: { 'idempotency-key': 'short' } }) } }),
  SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ cards: [] }) } }),
  TOO_MANY_CARDS: (f) => ({ options: { token: f.token, ...json({ cards: Array.from({ length: 251 }, (_, i) => ({ id: `c${i}`, back: 'x' })) }) } }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly, ...json(bulk(f)) } }),
  DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/cards`, options: { token: f.token, ...json(bulk(f)) } }),
  DECK_NOT_FOUND: (f) => ({ path: '/decks/dck_missing/cards', options: { token: f.token, ...json(bulk(f)) } }),
  CARD_NOT_FOUND: (f) => ({ options: { token: f.token, ...json({ cards: [{ id: f.otherCardId, back: 'x' }] }) } }),
  IDEMPOTENCY_CONFLICT: (f) => ({ options: { token: f.token, ...json(bulk(f, 'different'), { headers: { 'idempotency-key': 'status-codes-bulk' } }) } }),
  VERSION_MISMATCH: (f) => ({ options: { token: f.token, ...json(bulk(f), { headers: stale }) } }),
  PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
  UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('## Front\nq', 'text/markdown') } }),
};
TRIGGERS.startReview = {
  BAD_REQUEST: (f) => ({ options: { token: f.token, ...raw('{"deckId":', 'application/json') } }),
  SCHEMA_INVALID: (f) => ({ options: { token: f.token, ...json({ deckId: f.deckId, relearn: 'yes' }) } }),
  FORBIDDEN: (f) => ({ options: { token: f.reviewsOnly, ...json({ deckId: f.deckId }) } }),
  DECK_NOT_FOUND: (f) => ({ options: { token: f.token, ...json({ deckId: f.otherDeckId }) } }),
  IDEMPOTENCY_CONFLICT: (f) => ({ options: { token: f.token, ...json({ deckId: f.deckId, resume: true }, { headers: { 'idempotency-key': 'status-codes-start' } }) } }),
  PAYLOAD_TOO_LARGE: (f) => ({ options: { token: f.token, ...raw(BIG, 'application/json') } }),
  UNSUPPORTED_MEDIA_TYPE: (f) => ({ options: { token: f.token, ...raw('deckId: x', 'text/markdown') } }),
};
TRIGGERS.listReviews = {
  BAD_REQUEST: (f) => ({ path: '/reviews?status=paused', options: { token: f.token } }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly } }),
  DECK_NOT_FOUND: (f) => ({ path: `/reviews?deckId=${f.otherDeckId}`, options: { token: f.token } }),
};
TRIGGERS.listDue = {
  BAD_REQUEST: (f) => ({ options: twice(f) }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly } }),
};
TRIGGERS.getSchedule = {
  BAD_REQUEST: (f) => ({ options: twice(f) }),
  FORBIDDEN: (f) => ({ options: { token: f.readOnly } }),
  DECK_FORBIDDEN: (f) => ({ path: `/decks/${f.otherDeckId}/schedule`, options: { token: f.token } }),
  DECK_NOT_FOUND: (f) => ({ path: '/decks/dck_missing/schedule', options: { token: f.token } }),
};

const STATUS: Record<string, number> = {
  BAD_REQUEST: 400, PARSE_FAILED: 400, CSV_TOO_MANY_COLUMNS: 400, CSV_UNCLOSED_QUOTE: 400, SCHEMA_INVALID: 400, TOO_MANY_CARDS: 400, UNAUTHORIZED: 401, TOKEN_REVOKED: 401,
  FORBIDDEN: 403, DECK_FORBIDDEN: 403, DECK_LIMIT_REACHED: 403, DECK_NOT_FOUND: 404, CARD_NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409, VERSION_MISMATCH: 412, PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415,
};

for (const name of Object.keys(OPERATIONS)) {
  TRIGGERS[name].UNAUTHORIZED = () => ({ options: { token: 'svc_pat_guess' } });
  TRIGGERS[name].TOKEN_REVOKED = (f) => ({ options: { token: f.revoked } });
}

describe('status codes per route', () => {
  let f: Fixture;

  // A socket: the 400s of routes with no parameters to get wrong are for a repeated Authorization line.
  const suite = buildForSuite({ env: { BODY_LIMIT_BYTES: '8192', DECK_LIMIT: '3', FAILED_AUTH_PER_MINUTE: '1000' }, socket: true });
  before(async () => {
    const user = await suite.server.user();
    const { deckId, version } = await createDeck(suite.server, user.token, 2);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cards[0].id;
    const fullDeckId = (await suite.server.api('POST', '/decks/import', { token: user.token, json: { deck: { title: 'Full', lang: 'en' }, ...manyCards(250) } })).body.deckId;
    assert.match(fullDeckId, /^dck_/);
    const other = await suite.server.user();
    const { deckId: otherDeckId } = await createDeck(suite.server, other.token, 1);
    const otherCardId = (await suite.server.api('GET', `/decks/${otherDeckId}`, { token: other.token })).body.cards[0].id;
    const atLimit = await suite.server.user();
    for (let i = 0; i < 3; i++) await createDeck(suite.server, atLimit.token, 1);
    const revoked = await suite.server.token(user.email, ['decks:read', 'decks:write']);
    await revokeToken(suite.server.app.services, { tokenId: revoked.tokenId });
    // The first use of each key, so the triggers' different bodies conflict with it.
    await suite.server.api('POST', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ front: 'first' }] }, headers: { 'idempotency-key': 'status-codes-append' } });
    await suite.server.api('POST', '/decks/import', { token: user.token, json: deckBody(1), headers: { 'idempotency-key': 'status-codes-import' } });
    await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cardId, back: 'first' }] }, headers: { 'idempotency-key': 'status-codes-bulk' } });
    await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId }, headers: { 'idempotency-key': 'status-codes-start' } });
    f = {
      token: user.token,
      readOnly: (await suite.server.token(user.email, ['decks:read'])).token,
      reviewsOnly: (await suite.server.token(user.email, ['reviews:read'])).token,
      revoked: revoked.token,
      full: atLimit.token,
      deckId, version, cardId, fullDeckId, otherDeckId, otherCardId,
    };
  });

  for (const [name, triggers] of Object.entries(TRIGGERS)) {
    const op = OPERATIONS[name];
    for (const [code, trigger] of Object.entries(triggers)) {
      test(`should answer ${op.method} ${op.template} with ${STATUS[code]} ${code}`, async () => {
        const { path, options } = trigger(f);
        const target = path ?? op.path(f);
        const res = await suite.server.api(op.method, target, op.body !== undefined && options.json === undefined && options.body === undefined && code !== 'BAD_REQUEST'
          ? { ...options, json: op.body }
          : options);
        assert.equal(res.status, STATUS[code], `${op.method} ${target}: ${res.text}`);
        assert.equal(res.body.error.code, code, res.text);
      });
    }
  }

  test('should have a request above for every error code the document lists on these routes', () => {
    const doc = suite.server.app.apiDocument() as unknown as { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: { properties?: { error?: { properties?: { code?: { enum?: string[] } } } } } }> }> }>> };
    const missing: string[] = [];
    for (const [name, op] of Object.entries(OPERATIONS)) {
      const operation = doc.paths[op.template]?.[op.method.toLowerCase()];
      assert.ok(operation, `${op.method} ${op.template} is documented`);
      for (const response of Object.values(operation.responses)) {
        for (const code of response.content?.['application/json']?.schema.properties?.error?.properties?.code?.enum ?? []) {
          if (!(code in ELSEWHERE) && !(code in TRIGGERS[name])) missing.push(`${op.method} ${op.template} ${code}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });
});
