import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, deckBody, buildForSuite } from '../../helpers/server.ts';

type Card = { id: string; order: number; front: string | null };

// Twenty appends whose sizes add up to far more than the 240 places left in a 10-card deck.
const SIZES = [3, 25, 7, 18, 12, 30, 1, 9, 22, 14, 5, 27, 11, 16, 2, 20, 8, 13, 24, 6];

describe('concurrent writes', () => {
  const suite = buildForSuite();

  test('should never take a deck past 250 cards nor lose an accepted card under 20 parallel appends', async () => {
    assert.ok(SIZES.reduce((a, b) => a + b, 0) > 240);
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 10);
    const results = await Promise.all(SIZES.map((size, i) => suite.server.api('POST', `/decks/${deckId}/cards`, {
      token,
      json: { cards: Array.from({ length: size }, (_, j) => ({ front: `append ${i} card ${j}`, back: 'b' })) },
    })));
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    const cards = deck.body.cards as Card[];

    assert.ok(cards.length <= 250, `the deck has ${cards.length} cards`);
    assert.equal(deck.body.cardCount, cards.length);
    assert.deepEqual(cards.map((c) => c.order), cards.map((_, i) => i));
    const byId = new Map(cards.map((c) => [c.id, c]));
    let accepted = 0;
    results.forEach((res, i) => {
      const size = SIZES[i];
      if (res.status === 200) {
        accepted += size;
        assert.equal(res.body.addedCount, size);
        (res.body.cards as Card[]).forEach((added, j) => {
          assert.deepEqual(byId.get(added.id), added, `append ${i}: card ${j} is missing or changed`);
          assert.equal(added.front, `append ${i} card ${j}`);
        });
        const orders = (res.body.cards as Card[]).map((c) => c.order);
        assert.deepEqual(orders, orders.map((_, j) => (orders[0]) + j), `append ${i} is not contiguous`);
        assert.equal(res.body.cardCount, (orders[orders.length - 1]) + 1);
      } else {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'TOO_MANY_CARDS');
        // The deck only grows, so what did not fit then cannot fit now.
        assert.ok(cards.length + size > 250, `append ${i} of ${size} was refused but fits in ${cards.length}`);
        assert.ok(!cards.some((c) => c.front?.startsWith(`append ${i} `)), `refused append ${i} left cards behind`);
      }
    });
    assert.equal(cards.length, 10 + accepted);
    assert.ok(results.some((r) => r.status === 400), 'some appends must have been refused');
  });

  test('should create exactly one deck from 10 parallel imports with one Idempotency-Key', async () => {
    const { token } = await suite.server.user();
    const key = `parallel-import-${process.pid}`;
    const send = () => suite.server.api('POST', '/decks/import', { token, json: deckBody(20, 'raced'), headers: { 'idempotency-key': key } });
    const results = await Promise.all(Array.from({ length: 10 }, send));
    const created = results.filter((r) => r.status === 201);
    const busy = results.filter((r) => r.status !== 201);
    for (const res of busy) {
      assert.equal(res.status, 409, res.text);
      assert.equal(res.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
      assert.equal(res.headers.get('retry-after'), '1');
    }
    assert.ok(created.length >= 1);
    assert.equal(created.filter((r) => r.headers.get('idempotent-replayed') === null).length, 1, 'exactly one import ran');
    for (const res of created) {
      assert.equal(res.text, (created[0]).text);
      if (res.headers.get('idempotent-replayed') !== null) assert.equal(res.headers.get('idempotent-replayed'), 'true');
    }
    const list = await suite.server.api('GET', '/decks', { token });
    assert.equal(list.body.items.length, 1);
    assert.equal(list.body.items[0].id, created[0]?.body.deckId);
    assert.equal(list.body.items[0].cardCount, 20);
    // Whoever was told to wait gets the same result on retry.
    const retry = await send();
    assert.equal(retry.status, 201);
    assert.equal(retry.text, created[0]?.text);
  });

  test('should append once from 10 parallel appends with one Idempotency-Key', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    const key = `parallel-append-${process.pid}`;
    const results = await Promise.all(Array.from({ length: 10 }, () => suite.server.api('POST', `/decks/${deckId}/cards`, {
      token, json: { cards: [{ front: 'only once' }] }, headers: { 'idempotency-key': key },
    })));
    for (const res of results) {
      if (res.status !== 200) assert.equal(res.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
    }
    assert.equal(results.filter((r) => r.status === 200 && r.headers.get('idempotent-replayed') === null).length, 1);
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    assert.equal(deck.body.cards.length, 2);
  });

  test('should let exactly one of 10 parallel PATCHes with the same If-Match win, the others 412', async () => {
    const { token } = await suite.server.user();
    const { deckId, version } = await createDeck(suite.server, token, 1);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => suite.server.api('PATCH', `/decks/${deckId}`, {
      token, json: { title: `title ${i}` }, headers: { 'if-match': version },
    })));
    const winners = results.filter((r) => r.status === 200);
    assert.equal(winners.length, 1);
    for (const res of results) {
      if (res.status === 200) continue;
      assert.equal(res.status, 412);
      assert.equal(res.body.error.code, 'VERSION_MISMATCH');
    }
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    assert.equal(deck.body.title, winners[0]?.body.title);
    assert.equal(deck.body.version, winners[0]?.body.version);
    assert.notEqual(deck.body.version, version);
  });

  test('should let exactly one of 10 parallel card writes with the same If-Match win, the others 412', async () => {
    const { token } = await suite.server.user();
    const { deckId, version } = await createDeck(suite.server, token, 2);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token })).body.cards[0].id as string;
    const writes = Array.from({ length: 10 }, (_, i) => (i % 2 === 0
      ? suite.server.api('PATCH', `/decks/${deckId}/cards/${cardId}`, { token, json: { front: `front ${i}` }, headers: { 'if-match': version } })
      : suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: `new ${i}` }] }, headers: { 'if-match': version } })));
    const results = await Promise.all(writes);
    const winners = results.flatMap((r, i) => (r.status === 200 ? [i] : []));
    assert.equal(winners.length, 1);
    assert.ok(results.every((r) => r.status === 200 || r.body.error.code === 'VERSION_MISMATCH'));
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    const winner = winners[0];
    // Even writes patch the first card, odd ones append: only the winner's change is there.
    assert.equal(deck.body.cards.length, winner % 2 === 0 ? 2 : 3);
    assert.equal(deck.body.cards[0].front, winner % 2 === 0 ? `front ${winner}` : 'Question 1');
  });
});
