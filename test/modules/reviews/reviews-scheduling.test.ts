import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Rating, createEmptyCard, fsrs, generatorParameters } from 'ts-fsrs';
import { deckBody, buildForSuite } from '../../helpers/server.ts';

const MINUTE = 60_000;
const DAY = 86_400_000;

describe('review sessions: FSRS scheduling with an injected clock', () => {
  let current = Date.parse('2026-03-02T09:00:00.000Z');

  const suite = buildForSuite({ overrides: { clock: { now: () => new Date(current) } } });

  async function importDeck(cards: { front: string; back: string }[], title = 'Scheduling'): Promise<{ deckId: string; cardIds: string[] }> {
    const res = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title, lang: 'en' }, cards } });
    assert.equal(res.status, 201, res.text);
    const deck = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: suite.user.token });
    return { deckId: res.body.deckId, cardIds: deck.body.cards.map((c: { id: string }) => c.id) };
  }

  async function start(deckId: string): Promise<{ id: string; cards: string[] }> {
    const res = await suite.server.api('POST', '/reviews', { token: suite.user.token, json: { deckId } });
    assert.equal(res.status, 201, res.text);
    return res.body;
  }

  async function answer(sessionId: string, cardId: string, rating: string): Promise<string> {
    const res = await suite.server.api('POST', `/reviews/${sessionId}/answers`, { token: suite.user.token, json: { cardId, rating } });
    assert.equal(res.status, 200, res.text);
    return res.body.nextDue;
  }

  test('should make a card rated again due before one rated easy, as ts-fsrs schedules them', async () => {
    const { deckId, cardIds: [a, b] } = await importDeck(deckBody(2).cards);
    const session = await start(deckId);
    const now = new Date(current);
    const againDue = await answer(session.id, a, 'again');
    const easyDue = await answer(session.id, b, 'easy');
    assert.ok(Date.parse(againDue) < Date.parse(easyDue));
    assert.ok(Date.parse(againDue) - now.getTime() <= 10 * MINUTE, 'again comes back within minutes');
    assert.ok(Date.parse(easyDue) - now.getTime() >= DAY, 'easy comes back after days');
    const reference = fsrs(generatorParameters({ enable_fuzz: false }));
    assert.equal(againDue, reference.next(createEmptyCard(now), now, Rating.Again).card.due.toISOString());
    assert.equal(easyDue, reference.next(createEmptyCard(now), now, Rating.Easy).card.due.toISOString());
  });

  test('should queue due cards first, earliest due first, then new cards, and leave out cards not due', async () => {
    const { deckId, cardIds: [a, b, c, d] } = await importDeck(deckBody(4).cards);
    const first = await start(deckId);
    assert.deepEqual(first.cards, [a, b, c, d]);
    await answer(first.id, a, 'easy');
    const dueB = await answer(first.id, b, 'good');
    const dueC = await answer(first.id, c, 'again');
    assert.ok(Date.parse(dueC) < Date.parse(dueB));
    await suite.server.api('POST', `/reviews/${first.id}/complete`, { token: suite.user.token });

    assert.deepEqual((await start(deckId)).cards, [d], 'right away nothing is due: only the new card');

    current = Math.max(Date.parse(dueB), Date.parse(dueC)) + MINUTE;
    const second = await start(deckId);
    assert.deepEqual(second.cards, [c, b, d], 'c (due first), b, then the new card; a (easy) is not due');
  });

  test('should keep a card\'s history across sessions', async () => {
    const { deckId, cardIds: [a, b] } = await importDeck(deckBody(2).cards);
    const first = await start(deckId);
    const firstDue = await answer(first.id, a, 'good');
    await suite.server.api('POST', `/reviews/${first.id}/complete`, { token: suite.user.token });
    current = Date.parse(firstDue);
    const second = await start(deckId);
    assert.deepEqual(second.cards, [a, b]);
    const now = current;
    const reviewedDue = await answer(second.id, a, 'good');
    const freshDue = await answer(second.id, b, 'good');
    assert.ok(Date.parse(reviewedDue) - now >= DAY, 'a second good graduates the card to days');
    assert.ok(Date.parse(freshDue) - now < DAY, 'a first good keeps a new card in learning');
  });

  test('should keep the schedule of a card an update import keeps, and drop the schedule of one it drops', async () => {
    const cards = deckBody(3).cards;
    const { deckId, cardIds: [a, b, c] } = await importDeck(cards, 'Imported');
    const session = await start(deckId);
    await answer(session.id, a, 'easy');
    await answer(session.id, b, 'easy');
    await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: suite.user.token });

    // Keep a (same content, now second), drop b, keep c, add one new card.
    const update = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, {
      token: suite.user.token,
      json: { deck: { title: 'Imported', lang: 'en' }, cards: [cards[2], cards[0], { front: 'New', back: 'Card' }] },
    });
    assert.equal(update.status, 200, update.text);
    const after = (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.cards.map((x: { id: string }) => x.id);
    assert.deepEqual(after.slice(0, 2), [c, a], 'kept cards keep their ids');

    const next = await start(deckId);
    assert.deepEqual(next.cards, [c, after[2]], 'a keeps its schedule (not due, so not queued); c and the new card are new');

    const rows = await suite.server.app.services.db.selectFrom('card_schedules').select('card_id').where('user_id', '=', suite.user.userId)
      .where('card_id', 'in', [a, b]).execute();
    assert.deepEqual(rows.map((r) => r.card_id), [a], "b's schedule went with the card");
  });
});
