// The learning view (/decks/:deckId) over HTTP, on the run's store: who sees which deck, and the
// owner's review recorded through the review service (read back through the API).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { formAt, signedIn, signedOut, type WebClient } from '../../helpers/web.ts';
import { type TestServer, type TestUser, buildForSuite } from '../../helpers/server.ts';

/** The page with what differs between two responses (request ids, tokens) left out. */
function normalised(html: string): string {
  return html.replace(/(?:req|csrf|nonce)[\w-]*="[^"]*"/gi, '').replace(/value="[^"]*"/g, '');
}

async function importDeck(server: TestServer, user: TestUser, visibility: string, cards = 3): Promise<string> {
  const res = await server.api('POST', '/decks/import', {
    token: user.token,
    json: {
      deck: { title: `A ${visibility} deck`, lang: 'en', visibility },
      cards: Array.from({ length: cards }, (_, i) => ({ front: `Question ${i + 1}`, back: `Answer **${i + 1}**` })),
    },
  });
  assert.equal(res.status, 201, res.text);
  return res.body.deckId;
}

describe('learning view', () => {
  let owner: TestUser;
  let other: TestUser;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    owner = await suite.server.user();
    other = await suite.server.user();
  });

  test('should show a private deck to its owner only, and to anyone else the same 404 page as a deck that does not exist', async () => {
    const deckId = await importDeck(suite.server, owner, 'private');
    const mine = await (await signedIn(suite.server, owner)).get(`/decks/${deckId}`);
    assert.equal(mine.status, 200);
    assert.match(mine.text, /A private deck/);
    for (const visitor of [signedOut(suite.server), await signedIn(suite.server, other)]) {
      const missing = await visitor.get('/decks/dck_doesnotexist000000');
      assert.equal(missing.status, 404);
      const res = await visitor.get(`/decks/${deckId}`);
      assert.equal(res.status, 404);
      assert.doesNotMatch(res.text, /A private deck|Question 1/);
      assert.equal(normalised(res.text), normalised(missing.text));
    }
  });

  test('should show an unlisted deck to a signed-out visitor, marked noindex', async () => {
    const deckId = await importDeck(suite.server, owner, 'unlisted');
    const res = await signedOut(suite.server).get(`/decks/${deckId}`);
    assert.equal(res.status, 200);
    assert.match(res.text, /Question 1/);
    assert.equal(res.headers.get('x-robots-tag'), 'noindex');
    assert.match(res.text, /<meta name="robots" content="noindex">/);
  });

  test('should show a public deck to anyone, indexable, one card at a time with Previous and Next', async () => {
    const deckId = await importDeck(suite.server, owner, 'public');
    const visitor = await signedIn(suite.server, other);
    const first = await visitor.get(`/decks/${deckId}`);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get('x-robots-tag'), null);
    assert.doesNotMatch(first.text, /name="robots"/);
    assert.match(first.text, /Card 1 of 3/);
    assert.match(first.text, /Question 1/);
    assert.doesNotMatch(first.text, /Question 2/);
    assert.doesNotMatch(first.text, />Again</, 'only the owner rates');
    assert.match(first.text, /href="\/decks\/[\w-]+\?card=2" rel="next">Next</);
    const second = await visitor.get(`/decks/${deckId}?card=2&answer=1`);
    assert.match(second.text, /Card 2 of 3/);
    assert.match(second.text, /<h2 class="answer-label">Answer<\/h2><p>Answer <strong>2<\/strong><\/p>/);
    assert.match(second.text, /rel="prev">Previous</);
    assert.doesNotMatch(second.text, /data-answer hidden/);
  });

  test('should refuse a rating of a deck one does not own as if the deck did not exist', async () => {
    const deckId = await importDeck(suite.server, owner, 'public');
    const visitor = await signedIn(suite.server, other);
    const res = await visitor.request('POST', `/decks/${deckId}/review`, { _csrf: await visitor.sessionCsrf(), sessionId: 'rev_x', cardId: 'crd_x', rating: 'good' });
    assert.equal(res.status, 404);
  });

  test('should record the owner\'s ratings as a review session, resume it on reload, and show its statistics and due times at the end', async () => {
    const deckId = await importDeck(suite.server, owner, 'private', 3);
    const browser: WebClient = await signedIn(suite.server, owner);
    let page = await browser.get(`/decks/${deckId}`);
    assert.equal(page.status, 200);
    const action = `/decks/${deckId}/review`;
    const sessionId = formAt(page.text, action).fields.sessionId;
    assert.match(sessionId, /^rev_/);
    const ratings = ['good', 'again'];
    for (const rating of ratings) {
      page = await browser.get(`/decks/${deckId}`);
      const answered = await browser.submit(page.text, action, { rating, durationMs: '1500' });
      assert.equal(answered.status, 303);
      assert.equal(answered.location, `/decks/${deckId}`);
    }
    // A reload resumes the same session at its third card.
    page = await browser.get(`/decks/${deckId}`);
    assert.equal(formAt(page.text, action).fields.sessionId, sessionId);
    // A relearn session (DECISIONS): the card rated Again comes back at the end, a fourth place.
    assert.match(page.text, /Card 3 of 4 · 2 answered/);
    const read = await suite.server.api('GET', `/reviews/${sessionId}`, { token: owner.token });
    assert.equal(read.status, 200);
    assert.equal(read.body.status, 'active');
    assert.deepEqual(read.body.answers.map((a: any) => a.rating), ratings);
    assert.deepEqual(read.body.answers.map((a: any) => a.durationMs), [1500, 1500]);

    const third = await browser.submit(page.text, action, { rating: 'easy' });
    assert.equal(third.location, `/decks/${deckId}`);
    page = await browser.get(`/decks/${deckId}`);
    assert.match(page.text, /Card 4 of 4 · 3 answered/);
    assert.equal(formAt(page.text, action).fields.cardId, read.body.answers[1].cardId, 'the card rated Again, back');
    const last = await browser.submit(page.text, action, { rating: 'good' });
    assert.equal(last.status, 303);
    assert.equal(last.location, `/decks/${deckId}?session=${sessionId}`);
    const done = await browser.get(last.location);
    assert.match(done.text, /Session complete/);
    assert.match(done.text, /<dt>Answered<\/dt><dd>4 of 4<\/dd>/);
    assert.match(done.text, /<dt>Again<\/dt><dd>1<\/dd>/);
    assert.match(done.text, /<dt>Accuracy<\/dt><dd>75 %<\/dd>/);
    const completed = await suite.server.api('GET', `/reviews/${sessionId}`, { token: owner.token });
    assert.equal(completed.body.status, 'completed');
    for (const due of completed.body.stats.nextDue) assert.ok(done.text.includes(`datetime="${due.due}"`), due.due);
  });

  test('should resume through the learning view a session started through the API', async () => {
    const deckId = await importDeck(suite.server, owner, 'private', 2);
    const started = await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId } });
    assert.equal(started.status, 201);
    const page = await (await signedIn(suite.server, owner)).get(`/decks/${deckId}`);
    assert.equal(formAt(page.text, `/decks/${deckId}/review`).fields.sessionId, started.body.id);
  });
});
