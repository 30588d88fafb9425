import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { purgeTrash } from '../../../src/modules/decks/deck-trash.service.ts';
import { rowsMentioning } from '../../helpers/rows-mentioning.ts';
import { createDeck, manualClock, type ApiResponse, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

describe('DELETE /decks/{deckId}, the trash, restore and purge', () => {
  const time = manualClock('2031-03-01T10:00:00.000Z');
  const suite = buildForSuite({ env: { DECK_LIMIT: '3' }, overrides: { clock: time.clock }, socket: true });

  const cardIdsOf = async (token: string, deckId: string): Promise<string[]> =>
    (await suite.server.api('GET', `/decks/${deckId}`, { token })).body.cards.map((c: { id: string }) => c.id);

  test('should make a deleted deck missing everywhere and list it in the trash', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 3, 'Doomed capitals');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token })).status, 200, 'read once, so a body is held');
    const before = (await suite.server.api('GET', '/decks/capacity', { token })).body;

    const res = await suite.server.api('DELETE', `/decks/${deckId}`, { token });
    assert.equal(res.status, 204, res.text);
    assert.equal(res.text, '');

    assertError(await suite.server.api('GET', `/decks/${deckId}`, { token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('GET', `/decks/${deckId}/markdown`, { token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('PATCH', `/decks/${deckId}`, { token, json: { title: 'x' } }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('POST', `/decks/${deckId}/cards`, { token, json: { cards: [{ front: 'a', back: 'b' }] } }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('POST', '/reviews', { token, json: { deckId } }), 404, 'DECK_NOT_FOUND');
    assert.equal((await suite.server.api('GET', '/decks', { token })).body.items.length, 0);
    assert.equal((await suite.server.api('GET', '/search?q=doomed', { token })).body.results.length, 0);
    assert.equal((await suite.server.api('GET', '/decks?q=capitals', { token })).body.items.length, 0);
    const capacity = (await suite.server.api('GET', '/decks/capacity', { token })).body;
    assert.equal(capacity.current_decks, before.current_decks - 1);
    const page = await fetch(`${suite.server.url}/decks/${deckId}`);
    assert.equal(page.status, 404);

    const trash = await suite.server.api('GET', '/decks/trash', { token });
    assert.equal(trash.status, 200);
    assert.equal(trash.body.decks.length, 1);
    const [trashed] = trash.body.decks;
    assert.equal(trashed.id, deckId);
    assert.equal(trashed.title, 'Doomed capitals');
    assert.equal(trashed.deletedAt, new Date(time.ms).toISOString());
    assert.equal(trashed.purgeAt, new Date(time.ms + 30 * 86_400_000).toISOString());
    assert.equal(trash.body.nextToken, null);
  });

  test('should answer 204 for a deck already deleted and 404 DECK_NOT_FOUND for one that never existed', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
    assertError(await suite.server.api('DELETE', '/decks/dck_doesNotExist000000', { token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('POST', '/decks/dck_doesNotExist000000/restore', { token }), 404, 'DECK_NOT_FOUND');
  });

  test("should refuse another user's deck with DECK_FORBIDDEN, and once it is in its owner's trash say it does not exist", async () => {
    const owner = await suite.server.user();
    const other = await suite.server.user();
    const { deckId } = await createDeck(suite.server, owner.token, 1);
    assertError(await suite.server.api('DELETE', `/decks/${deckId}`, { token: other.token }), 403, 'DECK_FORBIDDEN');
    assertError(await suite.server.api('POST', `/decks/${deckId}/restore`, { token: other.token }), 403, 'DECK_FORBIDDEN');
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token: owner.token })).status, 204);
    assertError(await suite.server.api('DELETE', `/decks/${deckId}`, { token: other.token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('POST', `/decks/${deckId}/restore`, { token: other.token }), 404, 'DECK_NOT_FOUND');
    assert.equal((await suite.server.api('GET', '/decks/trash', { token: other.token })).body.decks.length, 0);
  });

  test('should need decks:delete to delete and restore, and decks:read to list the trash', async () => {
    const { email, token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    const { token: writer } = await suite.server.token(email, ['decks:read', 'decks:write']);
    const { token: noRead } = await suite.server.token(email, ['decks:delete']);
    assertError(await suite.server.api('DELETE', `/decks/${deckId}`, { token: writer }), 403, 'FORBIDDEN');
    assertError(await suite.server.api('POST', `/decks/${deckId}/restore`, { token: writer }), 403, 'FORBIDDEN');
    assertError(await suite.server.api('GET', '/decks/trash', { token: noRead }), 403, 'FORBIDDEN');
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token: noRead })).status, 204);
  });

  test('should refuse a stale If-Match with VERSION_MISMATCH and keep the deck', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    assertError(await suite.server.api('DELETE', `/decks/${deckId}`, { token, headers: { 'If-Match': '"2000-01-01T00:00:00.000Z"' } }), 412, 'VERSION_MISMATCH');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token })).status, 200);
  });

  test('should abandon the active session of a deleted deck and restore the same deck, cards and review history', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 3, 'Round trip');
    const cards = await cardIdsOf(token, deckId);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    assert.equal((await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: cards[0], rating: 'good' } })).status, 200);

    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
    const ended = await suite.server.api('GET', `/reviews/${session.id}`, { token });
    assert.equal(ended.body.status, 'abandoned', ended.text);

    const restored = await suite.server.api('POST', `/decks/${deckId}/restore`, { token });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.id, deckId);
    assert.equal(restored.body.title, 'Round trip');
    assert.deepEqual(restored.body.cards.map((c: { id: string }) => c.id), cards);
    assert.deepEqual(await cardIdsOf(token, deckId), cards);
    const history = await suite.server.api('GET', `/reviews/${session.id}`, { token });
    assert.equal(history.body.answers.length, 1);
    assert.equal((await suite.server.api('GET', '/decks/trash', { token })).body.decks.length, 0);
    assert.equal((await suite.server.api('GET', '/search?q=round', { token })).body.results.length, 0, 'the deck title is no card text');
    assert.equal((await suite.server.api('GET', '/decks?q=round', { token })).body.items[0].id, deckId, 'back in the search index');
    const fresh = await suite.server.api('POST', '/reviews', { token, json: { deckId } });
    assert.equal(fresh.status, 201, fresh.text);
  });

  test('should refuse to restore a deck at capacity with DECK_LIMIT_REACHED', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
    for (let i = 0; i < 3; i++) await createDeck(suite.server, token, 1);
    assertError(await suite.server.api('POST', `/decks/${deckId}/restore`, { token }), 403, 'DECK_LIMIT_REACHED');
    assert.equal((await suite.server.api('GET', '/decks/trash', { token })).body.decks.length, 1);
  });

  test('should page the trash with an opaque token and refuse a token of another list', async () => {
    const { token } = await suite.server.user();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { deckId } = await createDeck(suite.server, token, 1);
      time.ms += 1000;
      assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
      ids.unshift(deckId);
    }
    const first = await suite.server.api('GET', '/decks/trash?limit=2', { token });
    assert.deepEqual(first.body.decks.map((d: { id: string }) => d.id), ids.slice(0, 2));
    const second = await suite.server.api('GET', `/decks/trash?limit=2&token=${encodeURIComponent(first.body.nextToken)}`, { token });
    assert.deepEqual(second.body.decks.map((d: { id: string }) => d.id), ids.slice(2));
    assert.equal(second.body.nextToken, null);
    assertError(await suite.server.api('GET', '/decks/trash?token=garbage', { token }), 400, 'BAD_REQUEST');
    assertError(await suite.server.api('GET', '/decks/trash?limit=0', { token }), 400, 'BAD_REQUEST');
  });

  test('should purge a deck 30 days after its delete, leaving no row of it in any table', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 3, 'Purged');
    const kept = await createDeck(suite.server, token, 1, 'Kept in the trash');
    const cards = await cardIdsOf(token, deckId);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: cards[0], rating: 'again' } });
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token })).status, 204);
    time.ms += 29 * 86_400_000;
    assert.equal((await suite.server.api('DELETE', `/decks/${kept.deckId}`, { token })).status, 204);
    await purgeTrash(suite.server.app.services);
    const ids = [deckId, ...cards, session.id as string];
    // The activity log (the token's calls, kept 90 days) and idempotency records (24 hours) are
    // the caller's history, not the deck's.
    const except = ['activity', 'idempotency_keys'];
    assert.notDeepEqual(await rowsMentioning(suite.server.app.services.db, ids, except), [], 'not purged before 30 days');
    time.ms += 1 * 86_400_000 + 1;
    assert.ok((await purgeTrash(suite.server.app.services)) >= 1);
    assert.deepEqual(await rowsMentioning(suite.server.app.services.db, ids, except), []);
    assert.deepEqual((await suite.server.api('GET', '/decks/trash', { token })).body.decks.map((d: { id: string }) => d.id), [kept.deckId]);
    assertError(await suite.server.api('POST', `/decks/${deckId}/restore`, { token }), 404, 'DECK_NOT_FOUND');
  });
});
