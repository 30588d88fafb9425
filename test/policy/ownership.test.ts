// Ownership matrix: user A's token, with every scope, on user B's deck and cards.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, type ApiResponse, buildForSuite } from '../helpers/server.ts';

const B_DECK = {
  deck: { title: 'Bravo private deck', description: 'Bravo description text', lang: 'en', tags: ['bravo-tag'], thumbnail: 'https://img.example.com/bravo.png' },
  cards: [
    { front: 'Bravo front one', back: 'Bravo back one', extras: { subject: 'Bravo subject' } },
    { front: 'Bravo front two', back: 'Bravo back two', frontMedia: { imageUrl: 'https://img.example.com/bravo-card.png', imageAlt: 'Bravo alt' } },
  ],
};
const MARKDOWN = '---\nversion: 1\nlang: en\n---\n# Alpha takeover\n\n## Front\nq\n\n## Back\na\n';

describe('ownership', () => {
  let a: string;
  let b: string;
  let aDeckId: string;
  let bDeckId: string;
  let bCardIds: string[];
  let bSnapshot: string;
  let secrets: string[];

  const suite = buildForSuite();
  before(async () => {
    a = (await suite.server.user()).token;
    b = (await suite.server.user()).token;
    aDeckId = (await createDeck(suite.server, a, 1, 'Alpha deck')).deckId;
    const imported = await suite.server.api('POST', '/decks/import', { token: b, json: B_DECK });
    assert.equal(imported.status, 201);
    bDeckId = imported.body.deckId;
    const deck = await suite.server.api('GET', `/decks/${bDeckId}`, { token: b });
    bSnapshot = deck.text;
    bCardIds = deck.body.cards.map((c: { id: string }) => c.id);
    secrets = [
      'Bravo', 'bravo', 'img.example.com', deck.body.version, ...bCardIds,
    ];
  });

  /** None of B's data may appear, except what the request itself named. */
  function assertNoLeak(res: ApiResponse, requestPath: string): void {
    for (const secret of secrets) {
      if (requestPath.includes(secret)) continue;
      assert.ok(!res.text.includes(secret), `response to ${requestPath} leaks "${secret}": ${res.text}`);
    }
  }

  function assertError(res: ApiResponse, status: number, code: string, path: string): void {
    assert.equal(res.status, status, `${path}: ${res.text}`);
    assert.equal(res.body.error.code, code, path);
    assertNoLeak(res, path);
  }

  const stale = { 'if-match': '2000-01-01T00:00:00.000Z' };

  test('should answer 403 DECK_FORBIDDEN for B\'s deck in the path of every deck route', async () => {
    const cardId = bCardIds[0];
    const requests: [string, string, Record<string, unknown>][] = [
      ['GET', `/decks/${bDeckId}`, {}],
      ['GET', `/decks/${bDeckId}`, { headers: { accept: 'text/markdown' } }],
      ['PATCH', `/decks/${bDeckId}`, { json: { title: 'Alpha was here' } }],
      ['PATCH', `/decks/${bDeckId}`, { json: { title: 'Alpha was here' }, headers: stale }],
      ['POST', `/decks/${bDeckId}/cards`, { json: { cards: [{ front: 'Alpha card' }] } }],
      ['POST', `/decks/${bDeckId}/cards`, { json: { cards: [{ front: 'Alpha card' }] }, headers: { ...stale, 'idempotency-key': 'alpha-append-01' } }],
      ['PATCH', `/decks/${bDeckId}/cards/${cardId}`, { json: { front: 'Alpha edit' } }],
      ['PATCH', `/decks/${bDeckId}/cards/${cardId}`, { json: { front: 'Alpha edit' }, headers: stale }],
      ['PATCH', `/decks/${bDeckId}/cards/crd_missing`, { json: { front: 'Alpha edit' } }],
    ];
    for (const [method, path, options] of requests) {
      assertError(await suite.server.api(method, path, { token: a, ...options }), 403, 'DECK_FORBIDDEN', `${method} ${path}`);
    }
  });

  test('should answer 404 DECK_NOT_FOUND for B\'s deck as targetDeckId, as for a deck that does not exist', async () => {
    const path = `/decks/import?mode=update&targetDeckId=${bDeckId}`;
    const json = { deck: { title: 'Alpha takeover', lang: 'en' }, cards: [{ front: 'q', back: 'a' }] };
    assertError(await suite.server.api('POST', path, { token: a, json }), 404, 'DECK_NOT_FOUND', path);
    assertError(await suite.server.api('POST', path, { token: a, json, headers: stale }), 404, 'DECK_NOT_FOUND', path);
    assertError(await suite.server.api('POST', path, { token: a, json, headers: { 'idempotency-key': 'alpha-import-01' } }), 404, 'DECK_NOT_FOUND', path);
    assertError(await suite.server.api('POST', path, { token: a, body: MARKDOWN, headers: { 'content-type': 'text/markdown' } }), 404, 'DECK_NOT_FOUND', path);
    const missing = await suite.server.api('POST', '/decks/import?mode=update&targetDeckId=dck_missing', { token: a, json });
    assert.equal(missing.status, 404);
    assert.deepEqual(Object.keys(missing.body.error).sort(), Object.keys((await suite.server.api('POST', path, { token: a, json })).body.error).sort());
  });

  test('should answer 404 CARD_NOT_FOUND for B\'s card under A\'s own deck', async () => {
    for (const cardId of bCardIds) {
      const path = `/decks/${aDeckId}/cards/${cardId}`;
      assertError(await suite.server.api('PATCH', path, { token: a, json: { front: 'Alpha edit' } }), 404, 'CARD_NOT_FOUND', path);
    }
  });

  test('should never list or count B\'s decks for A', async () => {
    const list = await suite.server.api('GET', '/decks?limit=100', { token: a });
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((d: { id: string }) => d.id), [aDeckId]);
    assertNoLeak(list, '/decks');
    const capacity = await suite.server.api('GET', '/decks/capacity', { token: a });
    assert.equal(capacity.body.current_decks, 1);
  });

  test('should not replay B\'s idempotent import to A for the same key and body', async () => {
    const headers = { 'idempotency-key': 'shared-key-000001' };
    const json = { deck: { title: 'Shared body', lang: 'en' }, cards: [{ front: 'q' }] };
    const forB = await suite.server.api('POST', '/decks/import', { token: b, headers, json });
    assert.equal(forB.status, 201);
    const forA = await suite.server.api('POST', '/decks/import', { token: a, headers, json });
    assert.equal(forA.status, 201);
    assert.equal(forA.headers.get('idempotent-replayed'), null);
    assert.notEqual(forA.body.deckId, forB.body.deckId);
    const aDeck = await suite.server.api('GET', `/decks/${forA.body.deckId}`, { token: a });
    assert.equal(aDeck.status, 200);
    assertError(await suite.server.api('GET', `/decks/${forB.body.deckId}`, { token: a }), 403, 'DECK_FORBIDDEN', 'B import');
  });

  test('should leave B\'s deck exactly as it was', async () => {
    const deck = await suite.server.api('GET', `/decks/${bDeckId}`, { token: b });
    assert.equal(deck.text, bSnapshot);
    const md = await suite.server.api('GET', `/decks/${bDeckId}`, { token: b, headers: { accept: 'text/markdown' } });
    assert.ok(!md.text.includes('Alpha'));
  });
});
