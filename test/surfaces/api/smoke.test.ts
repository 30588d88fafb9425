import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

describe('first session', () => {
  const suite = buildForSuite();

  test('should import, list, append and read back a deck', async () => {
    const { token } = await suite.server.user();
    const who = await suite.server.api('GET', '/whoami', { token });
    assert.equal(who.status, 200);
    const { deckId } = await createDeck(suite.server, token, 2);
    const list = await suite.server.api('GET', '/decks', { token });
    assert.equal(list.body.items[0].id, deckId);
    const appended = await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: 'a', back: 'b' }] } });
    assert.equal(appended.status, 200);
    assert.equal(appended.body.cardCount, 3);
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    assert.deepEqual(deck.body.cards.map((c: { order: number }) => c.order), [0, 1, 2]);
  });
});
