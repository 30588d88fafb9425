import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

describe('review sessions: the study loop', () => {
  const suite = buildForSuite();

  async function deckCards(token: string, deckId: string): Promise<string[]> {
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token });
    return deck.body.cards.map((c: { id: string }) => c.id);
  }

  test('should run a whole session: start, answer every card, complete, read the stats', async () => {
    const { token } = await suite.server.user();
    const { deckId, version } = await createDeck(suite.server, token, 4);
    const cardIds = await deckCards(token, deckId);

    const started = await suite.server.api('POST', '/reviews', { token, json: { deckId } });
    assert.equal(started.status, 201);
    const session = started.body;
    assert.match(session.id, /^rev_[0-9A-Za-z]{20}$/);
    assert.equal(session.deckId, deckId);
    assert.equal(session.status, 'active');
    assert.equal(session.deckVersion, version);
    assert.equal(session.completedAt, null);
    assert.equal(session.stats, null);
    assert.deepEqual(session.cards, cardIds, 'new cards come in deck order');
    assert.deepEqual(session.answers, []);
    assert.deepEqual(session.progress, { answered: 0, remaining: 4, total: 4 });

    const ratings = ['good', 'again', 'easy'] as const;
    for (const [i, rating] of ratings.entries()) {
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: cardIds[i], rating, durationMs: 1000 * (i + 1) } });
      assert.equal(res.status, 200);
      assert.equal(res.body.answer.cardId, cardIds[i]);
      assert.equal(res.body.answer.rating, rating);
      assert.equal(res.body.answer.durationMs, 1000 * (i + 1));
      assert.equal(res.body.nextDue, res.body.answer.due);
      assert.ok(Date.parse(res.body.nextDue) > Date.parse(res.body.answer.answeredAt), 'the card is due after it was answered');
      assert.deepEqual(res.body.progress, { answered: i + 1, remaining: 4 - (i + 1), total: 4 });
    }

    const completed = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    assert.equal(completed.status, 200);
    assert.equal(completed.body.status, 'completed');
    assert.equal(completed.body.completedAt, completed.body.stats.completedAt);
    const stats = completed.body.stats;
    assert.equal(stats.total, 4);
    assert.equal(stats.answered, 3);
    assert.equal(stats.skipped, 1);
    assert.deepEqual(stats.ratings, { again: 1, hard: 0, good: 1, easy: 1 });
    assert.equal(stats.accuracy, 0.6667);
    assert.equal(stats.durationMs, 6000);
    assert.equal(stats.averageMsPerCard, 2000);
    assert.equal(stats.startedAt, session.startedAt);
    const read = await suite.server.api('GET', `/reviews/${session.id}`, { token });
    assert.deepEqual(stats.nextDue, read.body.answers.map((a: { cardId: string; due: string }) => ({ cardId: a.cardId, due: a.due })));
    assert.deepEqual(stats.nextDue.map((d: { cardId: string }) => d.cardId), cardIds.slice(0, 3), 'in answer order');

    assert.equal(read.status, 200);
    assert.deepEqual(read.body, completed.body, 'GET returns the completed session as complete did');
  });

  test('should return the same stats when a session is completed twice', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: session.cards[0], rating: 'hard' } });
    const first = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    const second = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    assert.equal(second.status, 200);
    assert.deepEqual(second.body, first.body);
  });

  test('should report null accuracy and average for a session completed without answers', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    const res = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    assert.equal(res.status, 200);
    assert.deepEqual({ ...res.body.stats, startedAt: null, completedAt: null }, {
      total: 2, answered: 0, skipped: 2, ratings: { again: 0, hard: 0, good: 0, easy: 0 },
      accuracy: null, durationMs: 0, averageMsPerCard: null, startedAt: null, completedAt: null, nextDue: [],
    });
  });

  test('should average durations over the answers that carry one', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 3);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: session.cards[0], rating: 'good', durationMs: 3000 } });
    const untimed = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: session.cards[1], rating: 'good' } });
    assert.equal(untimed.body.answer.durationMs, null);
    const { body } = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    assert.equal(body.stats.durationMs, 3000);
    assert.equal(body.stats.averageMsPerCard, 3000);
    assert.equal(body.stats.accuracy, 1);
  });

  test('should return the stored answer when the same answer is posted again', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    const json = { cardId: session.cards[0], rating: 'good', durationMs: 1500 };
    const first = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json });
    const again = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { ...json, durationMs: 9999 } });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body, 'the stored record, durationMs included');
    const read = await suite.server.api('GET', `/reviews/${session.id}`, { token });
    assert.equal(read.body.answers.length, 1);
    assert.deepEqual(read.body.progress, { answered: 1, remaining: 1, total: 2 });
  });

  test('should replay a recorded answer even after the session is completed', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    const json = { cardId: session.cards[0], rating: 'easy' };
    const first = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json });
    await suite.server.api('POST', `/reviews/${session.id}/complete`, { token });
    const replay = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json });
    assert.equal(replay.status, 200);
    // The stored record; `next` is the session's as it now is: none, once it is completed.
    assert.deepEqual({ ...replay.body, next: first.body.next }, first.body);
    assert.equal(first.body.next.id, session.cards[1]);
    assert.equal(replay.body.next, null);
  });
});

describe('review sessions: start and resume', () => {
  const suite = buildForSuite();

  test('should start a session when resume is true and none is active', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const res = await suite.server.api('POST', '/reviews', { token, json: { deckId, resume: true } });
    assert.equal(res.status, 201);
    assert.equal(res.body.status, 'active');
    assert.equal(res.body.cards.length, 2);
  });

  test('should return the active session, answers included, when resume is true', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 3);
    const first = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${first.id}/answers`, { token, json: { cardId: first.cards[0], rating: 'good' } });
    const resumed = await suite.server.api('POST', '/reviews', { token, json: { deckId, resume: true } });
    assert.equal(resumed.status, 201);
    assert.equal(resumed.body.id, first.id);
    assert.deepEqual(resumed.body.cards, first.cards);
    assert.equal(resumed.body.answers.length, 1);
    assert.deepEqual(resumed.body.progress, { answered: 1, remaining: 2, total: 3 });
  });

  test('should abandon the active session when a new one starts without resume', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const first = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    const second = await suite.server.api('POST', '/reviews', { token, json: { deckId, resume: false } });
    assert.equal(second.status, 201);
    assert.notEqual(second.body.id, first.id);
    assert.equal(second.body.status, 'active');
    const old = await suite.server.api('GET', `/reviews/${first.id}`, { token });
    assert.equal(old.body.status, 'abandoned');
    assert.equal(old.body.completedAt, null);
    assert.equal(old.body.stats, null);
    const resumed = await suite.server.api('POST', '/reviews', { token, json: { deckId, resume: true } });
    assert.equal(resumed.body.id, second.body.id, 'resume finds the new session, not the abandoned one');
  });

  test('should not resume a completed session', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 1);
    const first = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    await suite.server.api('POST', `/reviews/${first.id}/complete`, { token });
    const next = await suite.server.api('POST', '/reviews', { token, json: { deckId, resume: true } });
    assert.equal(next.status, 201);
    assert.notEqual(next.body.id, first.id);
    assert.equal((await suite.server.api('GET', `/reviews/${first.id}`, { token })).body.status, 'completed', 'starting again leaves a completed session alone');
  });

  test('should keep sessions of different decks independent', async () => {
    const { token } = await suite.server.user();
    const a = await createDeck(suite.server, token, 1, 'A');
    const b = await createDeck(suite.server, token, 1, 'B');
    const onA = (await suite.server.api('POST', '/reviews', { token, json: { deckId: a.deckId } })).body;
    await suite.server.api('POST', '/reviews', { token, json: { deckId: b.deckId } });
    assert.equal((await suite.server.api('GET', `/reviews/${onA.id}`, { token })).body.status, 'active');
  });

  test('should start an empty session when no card is due and none is new', async () => {
    const { token } = await suite.server.user();
    const { deckId } = await createDeck(suite.server, token, 2);
    const first = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    for (const cardId of first.cards) {
      await suite.server.api('POST', `/reviews/${first.id}/answers`, { token, json: { cardId, rating: 'easy' } });
    }
    await suite.server.api('POST', `/reviews/${first.id}/complete`, { token });
    const empty = await suite.server.api('POST', '/reviews', { token, json: { deckId } });
    assert.equal(empty.status, 201);
    assert.deepEqual(empty.body.cards, []);
    assert.deepEqual(empty.body.progress, { answered: 0, remaining: 0, total: 0 });
    const done = await suite.server.api('POST', `/reviews/${empty.body.id}/complete`, { token });
    assert.equal(done.body.stats.total, 0);
    assert.equal(done.body.stats.accuracy, null);
  });
});
