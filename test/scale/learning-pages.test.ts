// The learning view and the editor on two instances sharing one PostgreSQL and one Redis: an edit
// made in the editor on one is what the other shows on its next view (each renders its own copy,
// keyed by the deck's version), and a review started on one is resumed on the other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildApp, type FlashdeckApp } from '../../src/app.ts';
import { redisNamespaceFor } from '../helpers/backend.ts';
import { formAt, signedIn, signedOut } from '../helpers/web.ts';
import { type TestUser, buildForSuite } from '../helpers/server.ts';
import { SKIP_UNLESS_POSTGRES_REDIS } from './cluster.ts';

describe('learning pages on two instances', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  let b: FlashdeckApp;
  let bUrl: string;
  let owner: TestUser;
  // b shares a's store: closed before a, whose close drops the store (hooks run in the order declared).
  after(async () => { await b?.close(); });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    b = await buildApp(suite.server.config, { logger: false, redisNamespace: redisNamespaceFor(suite.server.dataDir) });
    await b.listen({ port: 0, host: '127.0.0.1' });
    const address = b.server.address();
    bUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    owner = await suite.server.user();
  });

  test('should show on one instance the card edited in the editor of the other, on the next view', async () => {
    const imported = await suite.server.api('POST', '/decks/import', {
      token: owner.token, json: { deck: { title: 'Shared', lang: 'en', visibility: 'unlisted' }, cards: [{ front: 'Before', back: 'Back' }] },
    });
    const deckId = imported.body.deckId;
    const onB = signedOut({ url: bUrl });
    assert.match((await onB.get(`/decks/${deckId}`)).text, /<p>Before<\/p>/);
    const editorA = await signedIn(suite.server, owner);
    const cardId = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[0].id;
    const page = await editorA.get(`/decks/${deckId}/edit?card=${cardId}`);
    const saved = await editorA.submit(page.text, `/decks/${deckId}/edit/cards/${cardId}`, { front: 'After *the edit*' });
    assert.equal(saved.status, 303);
    assert.match((await onB.get(`/decks/${deckId}`)).text, /<p>After <em>the edit<\/em><\/p>/);
    // And the editor on B saves against the version A wrote.
    const editorB = await signedIn({ app: b, url: bUrl }, owner);
    const pageB = await editorB.get(`/decks/${deckId}/edit?card=${cardId}`);
    assert.equal(formAt(pageB.text, `/decks/${deckId}/edit/cards/${cardId}`).fields.front, 'After *the edit*');
  });

  test('should resume on one instance the review session started on the other', async () => {
    const imported = await suite.server.api('POST', '/decks/import', {
      token: owner.token, json: { deck: { title: 'Review', lang: 'en' }, cards: [{ front: 'One', back: '1' }, { front: 'Two', back: '2' }] },
    });
    const deckId = imported.body.deckId;
    const onA = await signedIn(suite.server, owner);
    const first = await onA.get(`/decks/${deckId}`);
    const action = `/decks/${deckId}/review`;
    const sessionId = formAt(first.text, action).fields.sessionId;
    assert.equal((await onA.submit(first.text, action, { rating: 'good' })).status, 303);
    const onB = await signedIn({ app: b, url: bUrl }, owner);
    const second = await onB.get(`/decks/${deckId}`);
    assert.equal(formAt(second.text, action).fields.sessionId, sessionId);
    assert.match(second.text, /Card 2 of 2 · 1 answered/);
  });
});
