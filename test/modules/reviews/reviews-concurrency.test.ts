import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

describe('review sessions: concurrency', () => {
  const suite = buildForSuite();

  async function start(deckId: string, resume?: boolean) {
    return suite.server.api('POST', '/reviews', { token: suite.user.token, json: { deckId, resume } });
  }

  test('should record one answer when the same answer is posted 10 times in parallel', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 3);
    const session = (await start(deckId)).body;
    const json = { cardId: session.cards[0], rating: 'hard', durationMs: 800 };
    const results = await Promise.all(Array.from({ length: 10 }, () => suite.server.api('POST', `/reviews/${session.id}/answers`, { token: suite.user.token, json })));
    assert.deepEqual(results.map((r) => r.status), Array(10).fill(200));
    for (const r of results) assert.deepEqual(r.body, results[0].body, 'every retry sees the one stored record');
    const read = await suite.server.api('GET', `/reviews/${session.id}`, { token: suite.user.token });
    assert.equal(read.body.answers.length, 1);
    assert.deepEqual(read.body.progress, { answered: 1, remaining: 2, total: 3 });
  });

  test('should record one answer and refuse the rest when different ratings for one card race', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 1);
    const session = (await start(deckId)).body;
    const ratings = ['again', 'hard', 'good', 'easy', 'again', 'hard', 'good', 'easy'];
    const results = await Promise.all(ratings.map((rating) => suite.server.api('POST', `/reviews/${session.id}/answers`, {
      token: suite.user.token, json: { cardId: session.cards[0], rating },
    })));
    const read = await suite.server.api('GET', `/reviews/${session.id}`, { token: suite.user.token });
    assert.equal(read.body.answers.length, 1);
    const stored = read.body.answers[0].rating;
    for (const [i, r] of results.entries()) {
      if (ratings[i] === stored) assert.equal(r.status, 200);
      else assert.equal(r.body.error.code, 'ANSWER_CONFLICT');
    }
  });

  test('should count every answer when different cards are answered in parallel', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 20);
    const session = (await start(deckId)).body;
    const results = await Promise.all(session.cards.map((cardId: string) => suite.server.api('POST', `/reviews/${session.id}/answers`, {
      token: suite.user.token, json: { cardId, rating: 'good' },
    })));
    assert.ok(results.every((r) => r.status === 200));
    const completed = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: suite.user.token });
    assert.equal(completed.body.stats.answered, 20);
    assert.equal(completed.body.answers.length, 20);
    assert.deepEqual(completed.body.progress, { answered: 20, remaining: 0, total: 20 });
  });

  test('should leave a consistent session when complete races an answer', async () => {
    for (let round = 0; round < 12; round++) {
      const { deckId } = await createDeck(suite.server, suite.user.token, 2, `Race ${round}`);
      const session = (await start(deckId)).body;
      await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: suite.user.token, json: { cardId: session.cards[0], rating: 'good' } });
      const racing = { cardId: session.cards[1], rating: 'again' };
      const [answer, complete] = await Promise.all([
        suite.server.api('POST', `/reviews/${session.id}/answers`, { token: suite.user.token, json: racing }),
        suite.server.api('POST', `/reviews/${session.id}/complete`, { token: suite.user.token }),
      ]);
      assert.equal(complete.status, 200);
      const read = (await suite.server.api('GET', `/reviews/${session.id}`, { token: suite.user.token })).body;
      assert.deepEqual(read, complete.body, 'the stats complete returned are the stored ones');
      const inStats = read.stats.nextDue.some((d: { cardId: string }) => d.cardId === racing.cardId);
      if (answer.status === 200) {
        assert.ok(inStats, 'an accepted answer is in the stats');
        assert.equal(read.stats.answered, 2);
        assert.equal(read.stats.ratings.again, 1);
      } else {
        assert.equal(answer.status, 409);
        assert.equal(answer.body.error.code, 'SESSION_NOT_ACTIVE');
        assert.ok(!inStats, 'a refused answer is not in the stats');
        assert.equal(read.stats.answered, 1);
      }
      assert.equal(read.answers.length, read.stats.answered);
      assert.equal(read.progress.answered, read.stats.answered);
    }
  });

  test('should leave one active session when starts race, and hand every resume the same one', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 2);
    const resumed = await Promise.all(Array.from({ length: 6 }, () => start(deckId, true)));
    assert.ok(resumed.every((r) => r.status === 201));
    assert.equal(new Set(resumed.map((r) => r.body.id)).size, 1, 'every resume got the one session');

    const fresh = await Promise.all(Array.from({ length: 6 }, () => start(deckId)));
    assert.ok(fresh.every((r) => r.status === 201));
    const statuses = await Promise.all([resumed[0], ...fresh].map((r) => suite.server.api('GET', `/reviews/${r.body.id}`, { token: suite.user.token })));
    const active = statuses.filter((s) => s.body.status === 'active');
    assert.equal(active.length, 1, 'exactly one active session for the deck');
    assert.equal(statuses.filter((s) => s.body.status === 'abandoned').length, 6);
    assert.equal((await start(deckId, true)).body.id, active[0].body.id);
  });
});
