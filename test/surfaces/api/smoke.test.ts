import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeck, startServer, type TestServer } from '../../helpers/server.ts';

describe('first session', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(async () => { await server.close(); });

  test('should import, list, append and read back a deck', async () => {
    const { token } = await server.user();
    const who = await server.api('GET', '/whoami', { token });
    assert.equal(who.status, 200);
    const { deckId } = await createDeck(server, token, 2);
    const list = await server.api('GET', '/decks', { token });
    assert.equal(list.body.items[0].id, deckId);
    const appended = await server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: 'a', back: 'b' }] } });
    assert.equal(appended.status, 200);
    assert.equal(appended.body.cardCount, 3);
    const deck = await server.api('GET', `/decks/${deckId}`, { token });
    assert.deepEqual(deck.body.cards.map((c: { order: number }) => c.order), [0, 1, 2]);
  });
});
