import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, type ApiResponse, manualClock, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

const cards = (n: number, label = 'New') => Array.from({ length: n }, (_, i) => ({ front: `${label} question ${i}`, back: `${label} answer ${i}` }));

describe('POST /decks/{deckId}/cards', () => {
  const time = manualClock('2030-07-01T08:00:00.000Z');
  const suite = buildForSuite({ overrides: { clock: time.clock } });

  const deckOf = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;

  test('should append cards at the end without touching existing ones', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 3);
    const before = await deckOf(deckId);
    time.ms += 1000;
    const res = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, json: { cards: cards(2) } });
    assert.equal(res.status, 200);
    assert.equal(res.body.deckId, deckId);
    assert.equal(res.body.addedCount, 2);
    assert.equal(res.body.cardCount, 5);
    assert.equal(res.body.idempotencyKey, undefined);
    assert.notEqual(res.body.version, version);
    assert.deepEqual(res.body.cards.map((c: { order: number }) => c.order), [3, 4]);
    assert.deepEqual(res.body.cards.map((c: { front: string }) => c.front), ['New question 0', 'New question 1']);
    assert.equal(res.body.cards[0].extras.frontType, 'markdown');
    const after = await deckOf(deckId);
    assert.equal(after.version, res.body.version);
    assert.deepEqual(after.cards.slice(0, 3), before.cards);
    assert.deepEqual(after.cards.slice(3), res.body.cards);
  });

  test('should replay the stored response for the same Idempotency-Key and body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const headers = { 'idempotency-key': 'append-replay-0001' };
    const first = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: cards(2) } });
    assert.equal(first.status, 200);
    assert.equal(first.body.idempotencyKey, 'append-replay-0001');
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const again = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: cards(2) } });
    assert.equal(again.status, 200);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, first.text);
    assert.equal((await deckOf(deckId)).cardCount, 3);
  });

  test('should answer 409 IDEMPOTENCY_CONFLICT for the same key with a different body or deck', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const { deckId: otherDeck } = await createDeck(suite.server, suite.user.token, 1);
    const headers = { 'idempotency-key': 'append-conflict-01' };
    assert.equal((await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: cards(1, 'A') } })).status, 200);
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: cards(1, 'B') } }), 409, 'IDEMPOTENCY_CONFLICT');
    assertError(await suite.server.api('POST', `/decks/${otherDeck}/cards`, { token: suite.user.token, headers, json: { cards: cards(1, 'A') } }), 409, 'IDEMPOTENCY_CONFLICT');
    assert.equal((await deckOf(deckId)).cardCount, 2);
    assert.equal((await deckOf(otherDeck)).cardCount, 1);
  });

  test('should leave the key free after a failed request so a corrected retry runs', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const headers = { 'idempotency-key': 'append-retry-0001' };
    const invalid = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: [{ front: '', back: '' }] } });
    assertError(invalid, 400, 'SCHEMA_INVALID');
    const retried = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers, json: { cards: cards(1) } });
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null);
  });

  test('should answer 400 BAD_REQUEST for an Idempotency-Key of 7 or 129 characters', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    for (const key of ['k'.repeat(7), 'k'.repeat(129)]) {
      const res = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers: { 'idempotency-key': key }, json: { cards: cards(1) } });
      assertError(res, 400, 'BAD_REQUEST');
      assert.equal(res.body.error.details.field, 'idempotency-key');
    }
    assert.equal((await deckOf(deckId)).cardCount, 1);
  });

  test('should answer 412 VERSION_MISMATCH for a stale If-Match and accept the current version quoted or not', async () => {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, 1);
    time.ms += 1000;
    const first = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers: { 'if-match': version }, json: { cards: cards(1) } });
    assert.equal(first.status, 200);
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers: { 'if-match': version }, json: { cards: cards(1) } }), 412, 'VERSION_MISMATCH');
    time.ms += 1000;
    const quoted = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers: { 'if-match': `"${first.body.version}"` }, json: { cards: cards(1) } });
    assert.equal(quoted.status, 200, quoted.text);
    time.ms += 1000;
    const bare = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, headers: { 'if-match': quoted.body.version }, json: { cards: cards(1) } });
    assert.equal(bare.status, 200, bare.text);
    assert.equal(bare.body.cardCount, 4);
  });

  test('should answer 400 TOO_MANY_CARDS for 251 cards in the body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, json: { cards: cards(251) } }), 400, 'TOO_MANY_CARDS');
    assert.equal((await deckOf(deckId)).cardCount, 1);
  });

  test('should answer 400 SCHEMA_INVALID naming the card for invalid cards', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const cases: [unknown, string][] = [
      [{ cards: [{ front: 'ok', back: 'ok' }, { front: '  ', back: '' }] }, 'cards[1]'],
      [{ cards: [{ back: null }] }, 'cards[0]'],
      [{ cards: [{ front: { text: 'x' } }] }, 'cards[0].front'],
      [{ cards: [{ front: 'x', extras: { colour: 'red' } }] }, 'cards[0].extras.colour'],
      [{ cards: [{ front: 'x', extras: { cardType: 'diagram' } }] }, 'cards[0].extras.cardType'],
      [{ cards: [{ front: 'x', backMedia: { imageUrl: 'http://img.example.com/a.png' } }] }, 'cards[0].backMedia.imageUrl'],
      [{ cards: [] }, 'cards'],
      [{ cards: cards(1), deck: { title: 'x' } }, 'deck'],
    ];
    for (const [json, field] of cases) {
      const res = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, json });
      assertError(res, 400, 'SCHEMA_INVALID');
      assert.equal(res.body.error.details.field, field, JSON.stringify(json));
    }
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, json: {} }), 400, 'SCHEMA_INVALID');
    assert.equal((await deckOf(deckId)).cardCount, 1);
  });

  test('should answer 400 BAD_REQUEST for malformed JSON and an empty body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, body: '{"cards": [', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, body: '', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
  });

  test('should answer 415 UNSUPPORTED_MEDIA_TYPE for a non-JSON body', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    for (const type of ['text/markdown', 'text/plain']) {
      assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token: suite.user.token, body: '## Front\nq', headers: { 'content-type': type } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('should answer 404 DECK_NOT_FOUND for an unknown deck', async () => {
    assertError(await suite.server.api('POST', '/decks/dck_nope/cards', { token: suite.user.token, json: { cards: cards(1) } }), 404, 'DECK_NOT_FOUND');
  });
});

describe('PATCH /decks/{deckId}/cards/{cardId}', () => {
  const time = manualClock('2030-07-02T08:00:00.000Z');
  const suite = buildForSuite({ overrides: { clock: time.clock } });

  async function deckWithCards(n = 3) {
    const { deckId, version } = await createDeck(suite.server, suite.user.token, n);
    const deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;
    return { deckId, version, cards: deck.cards as { id: string; order: number; front: string; back: string; extras: Record<string, unknown> }[] };
  }

  test('should update only the given fields and return the card', async () => {
    const { deckId, version, cards: [, card] } = await deckWithCards();
    time.ms += 1000;
    const res = await suite.server.api('PATCH', `/decks/${deckId}/cards/${card.id}`, { token: suite.user.token, json: { front: 'Edited', oneSided: true } });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, card.id);
    assert.equal(res.body.order, 1);
    assert.equal(res.body.front, 'Edited');
    assert.equal(res.body.back, card.back);
    assert.equal(res.body.oneSided, true);
    const deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body;
    assert.deepEqual(deck.cards[1], res.body);
    assert.notEqual(deck.version, version);
    assert.equal(deck.cards[0].front, 'Question 1');
  });

  test('should replace the whole extras object when extras is given', async () => {
    const { deckId, cards: [card] } = await deckWithCards(1);
    await suite.server.api('PATCH', `/decks/${deckId}/cards/${card.id}`, { token: suite.user.token, json: { extras: { subject: 'Biology', topic: 'Cells' } } });
    const res = await suite.server.api('PATCH', `/decks/${deckId}/cards/${card.id}`, { token: suite.user.token, json: { extras: { topic: 'Mitosis' } } });
    assert.equal(res.status, 200);
    assert.equal(res.body.extras.topic, 'Mitosis');
    assert.equal(res.body.extras.subject, undefined);
    assert.equal(res.body.extras.frontType, 'markdown');
  });

  test('should answer 404 CARD_NOT_FOUND for an unknown card or a card of another deck', async () => {
    const { deckId } = await deckWithCards(1);
    const other = await deckWithCards(1);
    assertError(await suite.server.api('PATCH', `/decks/${deckId}/cards/crd_nope`, { token: suite.user.token, json: { front: 'x' } }), 404, 'CARD_NOT_FOUND');
    assertError(await suite.server.api('PATCH', `/decks/${deckId}/cards/${other.cards[0].id}`, { token: suite.user.token, json: { front: 'x' } }), 404, 'CARD_NOT_FOUND');
    assert.equal((await suite.server.api('GET', `/decks/${other.deckId}`, { token: suite.user.token })).body.cards[0].front, 'Question 1');
  });

  test('should answer 404 DECK_NOT_FOUND for an unknown deck', async () => {
    const { cards: [card] } = await deckWithCards(1);
    assertError(await suite.server.api('PATCH', `/decks/dck_nope/cards/${card.id}`, { token: suite.user.token, json: { front: 'x' } }), 404, 'DECK_NOT_FOUND');
  });

  test('should answer 412 VERSION_MISMATCH for a stale If-Match and accept the current version quoted or not', async () => {
    const { deckId, version, cards: [card] } = await deckWithCards(1);
    const path = `/decks/${deckId}/cards/${card.id}`;
    time.ms += 1000;
    assert.equal((await suite.server.api('PATCH', path, { token: suite.user.token, headers: { 'if-match': version }, json: { front: 'One' } })).status, 200);
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token, headers: { 'if-match': version }, json: { front: 'Lost' } }), 412, 'VERSION_MISMATCH');
    let current = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.version;
    time.ms += 1000;
    assert.equal((await suite.server.api('PATCH', path, { token: suite.user.token, headers: { 'if-match': `"${current}"` }, json: { front: 'Two' } })).status, 200);
    current = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.version;
    time.ms += 1000;
    const bare = await suite.server.api('PATCH', path, { token: suite.user.token, headers: { 'if-match': current }, json: { front: 'Three' } });
    assert.equal(bare.status, 200);
    assert.equal(bare.body.front, 'Three');
  });

  test('should answer 400 SCHEMA_INVALID for an empty patch, unknown fields or a blank card', async () => {
    const { deckId, cards: [card] } = await deckWithCards(1);
    const path = `/decks/${deckId}/cards/${card.id}`;
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token, json: {} }), 400, 'SCHEMA_INVALID');
    const unknown = await suite.server.api('PATCH', path, { token: suite.user.token, json: { id: 'crd_mine' } });
    assertError(unknown, 400, 'SCHEMA_INVALID');
    assert.equal(unknown.body.error.details.field, 'id');
    const media = await suite.server.api('PATCH', path, { token: suite.user.token, json: { frontMedia: { imageUrl: 'javascript:alert(1)' } } });
    assertError(media, 400, 'SCHEMA_INVALID');
    assert.equal(media.body.error.details.field, 'frontMedia.imageUrl');
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token, json: { front: '', back: null } }), 400, 'SCHEMA_INVALID');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.cards[0].front, 'Question 1');
  });

  test('should answer 400 BAD_REQUEST for malformed JSON and an empty body, 415 for markdown', async () => {
    const { deckId, cards: [card] } = await deckWithCards(1);
    const path = `/decks/${deckId}/cards/${card.id}`;
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token, body: '{front:', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('PATCH', path, { token: suite.user.token, body: '## Front\nx', headers: { 'content-type': 'text/markdown' } }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
