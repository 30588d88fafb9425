// Studying over HTTP, on the run's store: an empty session (one started through the API while
// nothing was due) never hides a card added later; a view with nothing due starts no session; the
// home page's due and new counts follow the reviews.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { findActiveSessionOfDeck } from '../../../src/modules/reviews/reviews.service.ts';
import { signedIn } from '../../helpers/web.ts';
import { manualClock, type TestUser, buildForSuite } from '../../helpers/server.ts';

const DAY = 86_400_000;

describe('studying over HTTP', () => {
  const time = manualClock(Date.now());
  let owner: TestUser;
  const suite = buildForSuite({ overrides: { clock: time.clock }, socket: true });
  before(async () => {
    owner = await suite.server.user();
  });

  async function deckWithOneCardLearnt(title: string): Promise<string> {
    const imported = await suite.server.api('POST', '/decks/import', { token: owner.token, json: { deck: { title, lang: 'en' }, cards: [{ front: 'Learnt', back: 'Yes' }] } });
    assert.equal(imported.status, 201, imported.text);
    const deckId = imported.body.deckId as string;
    const session = await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId } });
    assert.equal((await suite.server.api('POST', `/reviews/${session.body.id}/answers`, { token: owner.token, json: { cardId: session.body.cards[0], rating: 'easy' } })).status, 200);
    assert.equal((await suite.server.api('POST', `/reviews/${session.body.id}/complete`, { token: owner.token })).status, 200);
    return deckId;
  }

  test('should show a card added after an empty session was started, instead of resuming that session', async () => {
    const deckId = await deckWithOneCardLearnt('Empty session');
    const empty = await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId, resume: true } });
    assert.equal(empty.status, 201, empty.text);
    assert.deepEqual(empty.body.cards, [], 'nothing was due: an empty session');
    const page = await signedIn(suite.server, owner);
    assert.match((await page.get(`/decks/${deckId}`)).text, /Nothing due now/);
    const added = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: owner.token, json: { cards: [{ front: 'Added later', back: 'Shown' }] } });
    assert.equal(added.status, 200, added.text);
    const view = await page.get(`/decks/${deckId}`);
    assert.match(view.text, /Added later/);
    assert.match(view.text, /Card 1 of 1/);
    const old = await suite.server.api('GET', `/reviews/${empty.body.id}`, { token: owner.token });
    assert.equal(old.body.status, 'abandoned', 'the empty session was replaced');
  });

  test('should start no session when nothing is due, and say when the next card is', async () => {
    const deckId = await deckWithOneCardLearnt('Nothing due');
    const page = await signedIn(suite.server, owner);
    for (let i = 0; i < 2; i++) {
      const view = await page.get(`/decks/${deckId}`);
      assert.match(view.text, /Nothing due now/);
      assert.match(view.text, /The next card is due <time datetime="[^"]+" title="\d{4}-\d\d-\d\d \d\d:\d\d UTC">in \d+ days<\/time>/);
      assert.match(view.text, />Study anyway</);
    }
    assert.equal(await findActiveSessionOfDeck(suite.server.app.services, owner, { deckId }), null, 'the views started no session');
    const home = await page.get('/');
    assert.match(home.text, new RegExp(`<a href="/decks/${deckId}" id="deck-${deckId}">Nothing due</a><span class="hint next-due">Next due <time`));
    time.ms += 9 * DAY; // past the easy card's 8 days, within the session's 30 idle days
    const later = await page.get('/');
    assert.match(later.text, new RegExp(`id="deck-${deckId}">Nothing due</a></th>\\s*<td class="num due some">1</td>\\s*<td class="num new">0</td>`), 'due 1, new 0 once it came due');
    assert.match((await page.get(`/decks/${deckId}`)).text, /Learnt/);
  });
});
