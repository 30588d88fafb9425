// Card-level operations (DECISIONS "Beyond the spec's operations"): read one card, delete one, move
// one, and patch many at once, all or nothing, with one new version. Over HTTP, on both stores.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, type TestUser, buildForSuite } from '../../helpers/server.ts';

interface Card { id: string; order: number; front: string | null; back: string | null }

describe('card operations', () => {
  let user: TestUser;
  let other: TestUser;
  let readOnly: string;

  const suite = buildForSuite();
  before(async () => {
    user = await suite.server.user();
    other = await suite.server.user();
    readOnly = (await suite.server.token(user.email, ['decks:read'])).token;
  });

  async function deckOf(token: string, n: number): Promise<{ deckId: string; version: string; cards: Card[] }> {
    const { deckId } = await createDeck(suite.server, token, n);
    const deck = (await suite.server.api('GET', `/decks/${deckId}`, { token })).body;
    return { deckId, version: deck.version, cards: deck.cards };
  }

  const read = async (deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body;

  test('should read one card as the deck read shows it', async () => {
    const { deckId, cards } = await deckOf(user.token, 3);
    const res = await suite.server.api('GET', `/decks/${deckId}/cards/${cards[1].id}`, { token: user.token });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, cards[1]);
    const byReadOnly = await suite.server.api('GET', `/decks/${deckId}/cards/${cards[1].id}`, { token: readOnly });
    assert.equal(byReadOnly.status, 200, 'decks:read is enough');
  });

  test("should refuse another user's card with 403 DECK_FORBIDDEN and a card of another deck with 404 CARD_NOT_FOUND", async () => {
    const mine = await deckOf(user.token, 2);
    const theirs = await deckOf(other.token, 1);
    const forbidden = await suite.server.api('GET', `/decks/${theirs.deckId}/cards/${theirs.cards[0].id}`, { token: user.token });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'DECK_FORBIDDEN');
    const elsewhere = await suite.server.api('GET', `/decks/${mine.deckId}/cards/${theirs.cards[0].id}`, { token: user.token });
    assert.equal(elsewhere.status, 404);
    assert.equal(elsewhere.body.error.code, 'CARD_NOT_FOUND');
    const del = await suite.server.api('DELETE', `/decks/${theirs.deckId}/cards/${theirs.cards[0].id}`, { token: user.token });
    assert.equal(del.body.error.code, 'DECK_FORBIDDEN');
    assert.equal((await suite.server.api('GET', `/decks/${theirs.deckId}`, { token: other.token })).body.cardCount, 1, 'nothing deleted');
  });

  test('should delete a card, move later cards up one and give the deck a new version', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 4);
    const res = await suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[1].id}`, { token: user.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(Object.keys(res.body), ['deckId', 'cardCount', 'version']);
    assert.equal(res.body.deckId, deckId);
    assert.equal(res.body.cardCount, 3);
    assert.notEqual(res.body.version, version);
    const deck = await read(deckId);
    assert.deepEqual(deck.cards.map((c: Card) => [c.id, c.order]), [[cards[0].id, 0], [cards[2].id, 1], [cards[3].id, 2]]);
    assert.equal(deck.version, res.body.version);
    const again = await suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[1].id}`, { token: user.token });
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'CARD_NOT_FOUND');
  });

  test('should refuse a delete or move with a stale If-Match with 412 VERSION_MISMATCH and need decks:write', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 2);
    await suite.server.api('PATCH', `/decks/${deckId}`, { token: user.token, json: { title: 'Changed' } });
    const stale = await suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[0].id}`, { token: user.token, headers: { 'if-match': version } });
    assert.equal(stale.status, 412);
    assert.equal(stale.body.error.code, 'VERSION_MISMATCH');
    const move = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[0].id}/move`, { token: user.token, json: { order: 1 }, headers: { 'if-match': version } });
    assert.equal(move.body.error.code, 'VERSION_MISMATCH');
    const noScope = await suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[0].id}`, { token: readOnly });
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.error.code, 'FORBIDDEN');
    assert.equal((await read(deckId)).cardCount, 2);
  });

  test('should move a card down and up with orders kept contiguous', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 5);
    const down = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[0].id}/move`, { token: user.token, json: { order: 3 } });
    assert.equal(down.status, 200, down.text);
    assert.deepEqual(Object.keys(down.body), ['deckId', 'version', 'card']);
    assert.equal(down.body.card.id, cards[0].id);
    assert.equal(down.body.card.order, 3);
    assert.notEqual(down.body.version, version);
    let deck = await read(deckId);
    assert.deepEqual(deck.cards.map((c: Card) => c.id), [cards[1], cards[2], cards[3], cards[0], cards[4]].map((c) => c.id));
    assert.deepEqual(deck.cards.map((c: Card) => c.order), [0, 1, 2, 3, 4]);
    const up = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[4].id}/move`, { token: user.token, json: { order: 0 } });
    assert.equal(up.body.card.order, 0);
    deck = await read(deckId);
    assert.deepEqual(deck.cards.map((c: Card) => c.id), [cards[4], cards[1], cards[2], cards[3], cards[0]].map((c) => c.id));
    const still = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[4].id}/move`, { token: user.token, json: { order: 0 } });
    assert.equal(still.body.version, up.body.version, 'a move to where the card is changes nothing');
  });

  test('should refuse an order past the last card, or negative, with 400 SCHEMA_INVALID naming order', async () => {
    const { deckId, cards } = await deckOf(user.token, 3);
    for (const order of [3, 250, -1]) {
      const res = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[0].id}/move`, { token: user.token, json: { order } });
      assert.equal(res.status, 400, `order ${order}`);
      assert.equal(res.body.error.code, 'SCHEMA_INVALID');
      assert.equal(res.body.error.details.field, 'order');
    }
    const notInteger = await suite.server.api('POST', `/decks/${deckId}/cards/${cards[0].id}/move`, { token: user.token, json: { order: 1.5 } });
    assert.equal(notInteger.body.error.code, 'SCHEMA_INVALID');
    assert.deepEqual((await read(deckId)).cards.map((c: Card) => c.id), cards.map((c) => c.id));
  });

  test('should patch many cards in one write with one new version, answering with the cards named', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 4);
    const res = await suite.server.api('PATCH', `/decks/${deckId}/cards`, {
      token: user.token, json: { cards: [{ id: cards[2].id, back: 'Two' }, { id: cards[0].id, front: 'Zero', extras: { cardType: 'definition' } }] },
    });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.deckId, deckId);
    assert.deepEqual(res.body.cards.map((c: Card) => [c.id, c.order, c.front, c.back]), [
      [cards[2].id, 2, cards[2].front, 'Two'], [cards[0].id, 0, 'Zero', cards[0].back],
    ]);
    assert.notEqual(res.body.version, version);
    const deck = await read(deckId);
    assert.equal(deck.version, res.body.version, 'one new version for the whole patch');
    assert.equal(deck.cards[0].extras.cardType, 'definition');
    assert.deepEqual(deck.cards[1], cards[1], 'a card not named is untouched');
    const same = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cards[2].id, back: 'Two' }] } });
    assert.equal(same.body.version, res.body.version, 'a patch that changes nothing keeps the version');
  });

  test('should change nothing when one entry names a card of another deck, with 404 CARD_NOT_FOUND naming the entry', async () => {
    const mine = await deckOf(user.token, 3);
    const second = await deckOf(user.token, 1);
    const res = await suite.server.api('PATCH', `/decks/${mine.deckId}/cards`, {
      token: user.token, json: { cards: [{ id: mine.cards[0].id, back: 'changed' }, { id: second.cards[0].id, back: 'stolen' }] },
    });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'CARD_NOT_FOUND');
    assert.equal(res.body.error.details.field, 'cards[1].id');
    const deck = await read(mine.deckId);
    assert.equal(deck.version, mine.version, 'all or nothing');
    assert.equal(deck.cards[0].back, mine.cards[0].back);
    assert.equal((await read(second.deckId)).cards[0].back, second.cards[0].back);
  });

  test('should change nothing when one entry is invalid, refuse the same card twice or no entry, and a 251st entry with TOO_MANY_CARDS', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 2);
    const blank = await suite.server.api('PATCH', `/decks/${deckId}/cards`, {
      token: user.token, json: { cards: [{ id: cards[0].id, back: 'fine' }, { id: cards[1].id, front: '', back: '' }] },
    });
    assert.equal(blank.status, 400);
    assert.equal(blank.body.error.code, 'SCHEMA_INVALID');
    assert.equal(blank.body.error.details.field, 'cards[1]');
    assert.equal((await read(deckId)).version, version);
    const twice = await suite.server.api('PATCH', `/decks/${deckId}/cards`, {
      token: user.token, json: { cards: [{ id: cards[0].id, back: 'a' }, { id: cards[0].id, back: 'b' }] },
    });
    assert.equal(twice.body.error.code, 'SCHEMA_INVALID');
    assert.equal(twice.body.error.details.field, 'cards[1].id');
    const none = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [] } });
    assert.equal(none.body.error.code, 'SCHEMA_INVALID');
    const idOnly = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cards[0].id }] } });
    assert.equal(idOnly.body.error.code, 'SCHEMA_INVALID', 'an entry changes at least one field');
    const many = await suite.server.api('PATCH', `/decks/${deckId}/cards`, {
      token: user.token, json: { cards: Array.from({ length: 251 }, (_, i) => ({ id: `crd_${i}`, back: 'x' })) },
    });
    assert.equal(many.status, 400);
    assert.equal(many.body.error.code, 'TOO_MANY_CARDS');
    assert.equal((await read(deckId)).version, version);
  });

  test('should replay a bulk patch retried with its Idempotency-Key and refuse the key with another body', async () => {
    const { deckId, cards } = await deckOf(user.token, 2);
    const json = { cards: [{ id: cards[0].id, back: 'once' }] };
    const first = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json, headers: { 'idempotency-key': 'bulk-patch-1' } });
    assert.equal(first.status, 200);
    assert.equal(first.body.idempotencyKey, 'bulk-patch-1');
    await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cards[0].id, back: 'later' }] } });
    const retry = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json, headers: { 'idempotency-key': 'bulk-patch-1' } });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text, 'the stored bytes');
    assert.equal((await read(deckId)).cards[0].back, 'later', 'the retry did not write again');
    const conflict = await suite.server.api('PATCH', `/decks/${deckId}/cards`, {
      token: user.token, json: { cards: [{ id: cards[1].id, back: 'x' }] }, headers: { 'idempotency-key': 'bulk-patch-1' },
    });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'IDEMPOTENCY_CONFLICT');
  });

  test('should refuse a bulk patch with a stale If-Match, on a deck of another user, and without decks:write', async () => {
    const { deckId, version, cards } = await deckOf(user.token, 1);
    await suite.server.api('PATCH', `/decks/${deckId}`, { token: user.token, json: { description: 'moved on' } });
    const stale = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cards[0].id, back: 'x' }] }, headers: { 'if-match': version } });
    assert.equal(stale.status, 412);
    const theirs = await deckOf(other.token, 1);
    const forbidden = await suite.server.api('PATCH', `/decks/${theirs.deckId}/cards`, { token: user.token, json: { cards: [{ id: theirs.cards[0].id, back: 'x' }] } });
    assert.equal(forbidden.body.error.code, 'DECK_FORBIDDEN');
    const noScope = await suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: readOnly, json: { cards: [{ id: cards[0].id, back: 'x' }] } });
    assert.equal(noScope.body.error.code, 'FORBIDDEN');
  });

  test('should keep orders contiguous and lose no change when deletes, moves, appends and bulk patches race', async () => {
    const { deckId, cards } = await deckOf(user.token, 10);
    const calls = [
      suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[1].id}`, { token: user.token }),
      suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[7].id}`, { token: user.token }),
      suite.server.api('POST', `/decks/${deckId}/cards/${cards[9].id}/move`, { token: user.token, json: { order: 0 } }),
      suite.server.api('POST', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ front: 'new', back: 'card' }] } }),
      suite.server.api('PATCH', `/decks/${deckId}/cards`, { token: user.token, json: { cards: [{ id: cards[3].id, back: 'three' }, { id: cards[5].id, back: 'five' }] } }),
    ];
    for (const res of await Promise.all(calls)) assert.equal(res.status, 200, res.text);
    const deck = await read(deckId);
    assert.equal(deck.cardCount, 9);
    assert.deepEqual(deck.cards.map((c: Card) => c.order), [0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const ids = deck.cards.map((c: Card) => c.id);
    assert.ok(!ids.includes(cards[1].id) && !ids.includes(cards[7].id));
    assert.equal(deck.cards.find((c: Card) => c.id === cards[3].id).back, 'three');
    assert.equal(deck.cards.find((c: Card) => c.id === cards[5].id).back, 'five');
    assert.equal(deck.cards.at(-1).front, 'new');
  });

  test("should forget a deleted card's schedule and keep the session's recorded answer", async () => {
    const { deckId, cards } = await deckOf(user.token, 2);
    const session = (await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: user.token, json: { cardId: cards[0].id, rating: 'good' } });
    await suite.server.api('DELETE', `/decks/${deckId}/cards/${cards[0].id}`, { token: user.token });
    const schedule = (await suite.server.api('GET', `/decks/${deckId}/schedule`, { token: user.token })).body;
    assert.deepEqual(schedule.cards.map((c: { cardId: string }) => c.cardId), [cards[1].id]);
    const due = (await suite.server.api('GET', '/reviews/due', { token: user.token })).body;
    const row = due.decks.find((d: { deckId: string }) => d.deckId === deckId);
    assert.deepEqual([row.due, row.new, row.nextDueAt], [0, 1, null]);
    const read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: user.token })).body;
    assert.equal(read.answers.length, 1);
    assert.equal(read.next.id, cards[1].id, 'the deleted card is passed over');
  });
});
