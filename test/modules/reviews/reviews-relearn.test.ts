// Session extensions (DECISIONS "Beyond the spec's operations"): `next` in every session response,
// relearn sessions (a card rated `again` comes back at the end of the queue, up to 3 times, each
// return answered and retried like a card), and Idempotency-Key on POST /reviews. Over HTTP, on
// both stores.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, type TestUser, buildForSuite } from '../../helpers/server.ts';

describe('review sessions: next, relearn and Idempotency-Key', () => {
  let user: TestUser;

  const suite = buildForSuite();
  before(async () => {
    user = await suite.server.user();
  });

  async function start(json: Record<string, unknown>, headers: Record<string, string> = {}) {
    const res = await suite.server.api('POST', '/reviews', { token: user.token, json, headers });
    assert.equal(res.status, 201, res.text);
    return res;
  }
  const answer = (sessionId: string, cardId: string, rating: string) =>
    suite.server.api('POST', `/reviews/${sessionId}/answers`, { token: user.token, json: { cardId, rating } });

  test('should carry the next unanswered card itself in start, read, answer and complete', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 2);
    const deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body;
    const session = (await start({ deckId })).body;
    assert.equal(session.relearn, false);
    assert.deepEqual(session.next, deck.cards[0], 'the card itself, as the deck read shows it');
    const first = await answer(session.id, session.cards[0], 'good');
    assert.deepEqual(first.body.next, deck.cards[1]);
    const read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: user.token })).body;
    assert.deepEqual(read.next, deck.cards[1]);
    const last = await answer(session.id, session.cards[1], 'easy');
    assert.equal(last.body.next, null, 'nothing left');
    const done = (await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: user.token })).body;
    assert.equal(done.next, null);
  });

  test('should give next as the first unanswered card of the queue when cards are answered out of order', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 3);
    const session = (await start({ deckId })).body;
    const res = await answer(session.id, session.cards[1], 'good');
    assert.equal(res.body.next.id, session.cards[0]);
  });

  test('should leave a card rated again out of the queue again without relearn', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const session = (await start({ deckId })).body;
    const res = await answer(session.id, session.cards[0], 'again');
    assert.deepEqual(res.body.progress, { answered: 1, remaining: 0, total: 1 });
    assert.equal(res.body.next, null);
  });

  test('should bring a card rated again back at the end of the queue, up to 3 times, then no more', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 2);
    const session = (await start({ deckId, relearn: true })).body;
    assert.equal(session.relearn, true);
    const [a, b] = session.cards as string[];
    let res = await answer(session.id, a, 'again');
    assert.deepEqual(res.body.progress, { answered: 1, remaining: 2, total: 3 });
    assert.equal(res.body.next.id, b, 'the return waits at the end');
    let read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: user.token })).body;
    assert.deepEqual(read.cards, [a, b, a]);
    res = await answer(session.id, b, 'good');
    assert.equal(res.body.next.id, a, 'then the return');
    for (let returned = 1; returned <= 3; returned++) {
      res = await answer(session.id, a, 'again');
      assert.equal(res.status, 200, res.text);
    }
    read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: user.token })).body;
    assert.deepEqual(read.cards, [a, b, a, a, a], 'three returns and no fourth');
    assert.deepEqual(read.progress, { answered: 5, remaining: 0, total: 5 });
    assert.equal(read.next, null);
    assert.deepEqual(read.answers.map((x: { cardId: string; rating: string }) => [x.cardId, x.rating]), [[a, 'again'], [b, 'good'], [a, 'again'], [a, 'again'], [a, 'again']]);
    const done = (await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: user.token })).body;
    assert.deepEqual([done.stats.total, done.stats.answered, done.stats.skipped, done.stats.ratings.again], [5, 5, 0, 4]);
    assert.equal(done.stats.accuracy, 0.2);
    assert.deepEqual(done.stats.nextDue.map((x: { cardId: string }) => x.cardId), [a, b], 'one next due time per card');
    assert.equal(done.stats.nextDue[0].due, read.answers[4].due, "as the card's last answer set it");
  });

  test('should apply the retry and conflict rules to each return as to a card', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const session = (await start({ deckId, relearn: true })).body;
    const [a] = session.cards as string[];
    await answer(session.id, a, 'again');
    const returned = await answer(session.id, a, 'good');
    assert.equal(returned.status, 200);
    assert.deepEqual(returned.body.progress, { answered: 2, remaining: 0, total: 2 }, 'the answer went to the pending return');
    const retry = await answer(session.id, a, 'good');
    assert.equal(retry.status, 200);
    assert.deepEqual(retry.body.answer, returned.body.answer, 'the stored record of the return');
    const conflict = await answer(session.id, a, 'hard');
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'ANSWER_CONFLICT');
    assert.equal(conflict.body.error.details.rating, 'good');
    const read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: user.token })).body;
    assert.equal(read.answers.length, 2);
  });

  test('should refuse an answer for a pending return once the session is completed', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const session = (await start({ deckId, relearn: true })).body;
    await answer(session.id, session.cards[0], 'again');
    const done = (await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: user.token })).body;
    assert.deepEqual([done.stats.total, done.stats.skipped], [2, 1], 'the pending return counts as skipped');
    const late = await answer(session.id, session.cards[0], 'good');
    assert.equal(late.status, 409);
    assert.equal(late.body.error.code, 'SESSION_NOT_ACTIVE');
    const replay = await answer(session.id, session.cards[0], 'again');
    assert.equal(replay.status, 200, 'the recorded answer still replays');
  });

  test('should keep a resumed session as it was started (relearn included)', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const session = (await start({ deckId, relearn: true })).body;
    const resumed = (await start({ deckId, resume: true, relearn: false })).body;
    assert.equal(resumed.id, session.id);
    assert.equal(resumed.relearn, true);
  });

  test('should start once for an Idempotency-Key retried, replaying the first response', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 2);
    const first = await start({ deckId }, { 'idempotency-key': 'start-review-once' });
    assert.equal(first.body.idempotencyKey, 'start-review-once');
    const retry = await start({ deckId }, { 'idempotency-key': 'start-review-once' });
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.text, first.text);
    const sessions = (await suite.server.api('GET', `/reviews?deckId=${deckId}`, { token: user.token })).body.sessions;
    assert.deepEqual(sessions.map((s: { id: string; status: string }) => [s.id, s.status]), [[first.body.id, 'active']], 'one session started, none abandoned');
    const conflict = await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId, resume: true }, headers: { 'idempotency-key': 'start-review-once' } });
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'IDEMPOTENCY_CONFLICT');
    const missing = await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId: 'dck_missing' }, headers: { 'idempotency-key': 'start-review-missing' } });
    assert.equal(missing.body.error.code, 'DECK_NOT_FOUND');
    const again = await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId }, headers: { 'idempotency-key': 'start-review-missing' } });
    assert.equal(again.status, 201, 'a failed start leaves its key free');
  });
});
