// Due and history (DECISIONS "Beyond the spec's operations"): GET /reviews/due, GET
// /decks/{deckId}/schedule and GET /reviews, with a clock the test moves. Over HTTP, on both stores.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { createDeck, manualClock, type TestUser, buildForSuite } from '../../helpers/server.ts';

const DAY = 86_400_000;

describe('what is due, schedules and past sessions', () => {
  const time = manualClock('2026-03-02T09:00:00.000Z');
  let user: TestUser;
  let other: TestUser;
  let writeOnly: string;

  const suite = buildForSuite({ overrides: { clock: time.clock } });
  before(async () => {
    user = await suite.server.user();
    other = await suite.server.user();
    writeOnly = (await suite.server.token(user.email, ['decks:read', 'reviews:write'])).token;
  });

  async function review(token: string, deckId: string, ratings: string[]): Promise<{ id: string; cards: string[] }> {
    const session = (await suite.server.api('POST', '/reviews', { token, json: { deckId } })).body;
    for (const [i, rating] of ratings.entries()) {
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: session.cards[i], rating } });
      assert.equal(res.status, 200, res.text);
    }
    return session;
  }

  test('should count due and new cards per deck with the next due time still to come', async () => {
    const u = await suite.server.user();
    const empty = await createDeck(suite.server, u.token, 1, 'Untouched');
    time.ms += 1000;
    const studied = await createDeck(suite.server, u.token, 4, 'Studied');
    await review(u.token, studied.deckId, ['again', 'easy']);
    let due = (await suite.server.api('GET', '/reviews/due', { token: u.token })).body;
    assert.deepEqual(due.decks.map((d: { title: string }) => d.title), ['Studied', 'Untouched'], 'as GET /decks orders them');
    let row = due.decks[0];
    assert.deepEqual([row.deckId, row.due, row.new], [studied.deckId, 0, 2], 'nothing due yet; two never reviewed');
    const schedule = (await suite.server.api('GET', `/decks/${studied.deckId}/schedule`, { token: u.token })).body;
    const dues = schedule.cards.filter((c: { due: string | null }) => c.due !== null).map((c: { due: string }) => c.due).sort();
    assert.equal(row.nextDueAt, dues[0], 'the earliest due time still to come');
    assert.deepEqual(due.decks[1], { deckId: empty.deckId, title: 'Untouched', due: 0, new: 1, nextDueAt: null });
    assert.deepEqual(due.total, { due: 0, new: 3 });

    time.ms += 2 * 60_000; // past the again card's learning step, not the easy card's days
    due = (await suite.server.api('GET', '/reviews/due', { token: u.token })).body;
    row = due.decks[0];
    assert.deepEqual([row.due, row.new], [1, 2]);
    assert.equal(row.nextDueAt, dues[1]);
    time.ms += 20 * DAY;
    due = (await suite.server.api('GET', '/reviews/due', { token: u.token })).body;
    assert.deepEqual([due.decks[0].due, due.decks[0].nextDueAt, due.total.due], [2, null, 2]);
  });

  test("should never count another user's decks", async () => {
    await review(other.token, (await createDeck(suite.server, other.token, 2)).deckId, ['good']);
    const fresh = await suite.server.user();
    const due = (await suite.server.api('GET', '/reviews/due', { token: fresh.token })).body;
    assert.deepEqual(due, { decks: [], total: { due: 0, new: 0 } });
  });

  test('should give every card of a deck its FSRS state, new ones with nulls, in deck order', async () => {
    const { deckId } = await createDeck(suite.server, user.token, 3);
    const cards = (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cards as { id: string }[];
    const session = await review(user.token, deckId, ['good', 'again']);
    const res = await suite.server.api('GET', `/decks/${deckId}/schedule`, { token: user.token });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.deckId, deckId);
    assert.deepEqual(res.body.cards.map((c: { cardId: string }) => c.cardId), cards.map((c) => c.id));
    const [first, second, third] = res.body.cards;
    assert.equal(first.cardId, session.cards[0]);
    assert.equal(first.state, 'learning');
    assert.equal(first.reps, 1);
    assert.equal(first.lastReviewedAt, new Date(time.ms).toISOString());
    assert.ok(first.stability > 0 && first.difficulty > 0);
    assert.equal(second.state, 'learning');
    assert.equal(second.lapses, 0);
    assert.deepEqual(third, { cardId: cards[2].id, state: 'new', due: null, stability: null, difficulty: null, reps: 0, lapses: 0, lastReviewedAt: null });
    time.ms += 10 * DAY;
    await review(user.token, deckId, ['good', 'good']);
    const later = (await suite.server.api('GET', `/decks/${deckId}/schedule`, { token: user.token })).body;
    assert.equal(later.cards[0].state, 'review');
  });

  test("should refuse another user's deck with 403 DECK_FORBIDDEN, an unknown one with 404, and a token without reviews:read", async () => {
    const theirs = await createDeck(suite.server, other.token, 1);
    const forbidden = await suite.server.api('GET', `/decks/${theirs.deckId}/schedule`, { token: user.token });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, 'DECK_FORBIDDEN');
    const missing = await suite.server.api('GET', '/decks/dck_missing/schedule', { token: user.token });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, 'DECK_NOT_FOUND');
    for (const path of [`/decks/${theirs.deckId}/schedule`, '/reviews/due', '/reviews']) {
      const res = await suite.server.api('GET', path, { token: writeOnly });
      assert.equal(res.status, 403, path);
      assert.equal(res.body.error.code, 'FORBIDDEN', path);
    }
  });

  test('should list sessions newest first, by deck and status, in keyset pages', async () => {
    const u = await suite.server.user();
    const a = await createDeck(suite.server, u.token, 2, 'A');
    const b = await createDeck(suite.server, u.token, 2, 'B');
    const started: string[] = [];
    for (const deckId of [a.deckId, b.deckId, a.deckId, b.deckId]) {
      time.ms += 1000;
      started.push((await suite.server.api('POST', '/reviews', { token: u.token, json: { deckId } })).body.id);
    }
    time.ms += 1000;
    await suite.server.api('POST', `/reviews/${started[3]}/complete`, { token: u.token });
    const all = (await suite.server.api('GET', '/reviews', { token: u.token })).body;
    assert.deepEqual(all.sessions.map((s: { id: string }) => s.id), [...started].reverse());
    assert.equal(all.nextToken, null);
    assert.deepEqual(all.sessions.map((s: { status: string }) => s.status), ['completed', 'active', 'abandoned', 'abandoned']);
    assert.deepEqual(Object.keys(all.sessions[0]).sort(), ['completedAt', 'deckId', 'deckVersion', 'id', 'progress', 'relearn', 'startedAt', 'stats', 'status', 'updatedAt']);
    const ofA = (await suite.server.api('GET', `/reviews?deckId=${a.deckId}`, { token: u.token })).body;
    assert.deepEqual(ofA.sessions.map((s: { id: string }) => s.id), [started[2], started[0]]);
    const abandoned = (await suite.server.api('GET', '/reviews?status=abandoned', { token: u.token })).body;
    assert.deepEqual(abandoned.sessions.map((s: { id: string }) => s.id), [started[1], started[0]]);

    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { sessions: { id: string }[]; nextToken: string | null } =
        (await suite.server.api('GET', `/reviews?limit=1${token === null ? '' : `&token=${encodeURIComponent(token)}`}`, { token: u.token })).body;
      assert.ok(page.sessions.length <= 1);
      seen.push(...page.sessions.map((s) => s.id));
      token = page.nextToken;
    } while (token !== null);
    assert.deepEqual(seen, [...started].reverse());

    const firstPage = (await suite.server.api('GET', '/reviews?limit=1', { token: u.token })).body;
    const otherFilter = await suite.server.api('GET', `/reviews?limit=1&status=active&token=${encodeURIComponent(firstPage.nextToken)}`, { token: u.token });
    assert.equal(otherFilter.status, 400, 'a token of another filter');
    assert.equal(otherFilter.body.error.code, 'BAD_REQUEST');
    const tampered = await suite.server.api('GET', '/reviews?token=abc.def', { token: u.token });
    assert.equal(tampered.body.error.code, 'BAD_REQUEST');
  });

  test("should refuse a deckId filter naming another user's deck with 404 DECK_NOT_FOUND and a bad status with 400", async () => {
    const theirs = await createDeck(suite.server, other.token, 1);
    const res = await suite.server.api('GET', `/reviews?deckId=${theirs.deckId}`, { token: user.token });
    assert.equal(res.status, 404);
    assert.equal(res.body.error.code, 'DECK_NOT_FOUND');
    const bad = await suite.server.api('GET', '/reviews?status=paused', { token: user.token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, 'BAD_REQUEST');
  });
});
