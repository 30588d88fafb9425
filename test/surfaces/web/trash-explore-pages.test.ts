// Delete deck (a confirm page, then the trash), Restore, and /explore with Copy to
// my decks, over HTTP on the run's store: each read back through the API, CSRF on every form,
// another person's deck not found, the deck limit in words.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { buttonDescriptions, signedIn, signedOut } from '../../helpers/web.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

describe('trash and public decks in the browser', () => {
  let owner: TestUser;
  const suite = buildForSuite({ env: { DECK_LIMIT: '20' }, socket: true });
  before(async () => {
    owner = await suite.server.user();
  });

  async function deckOf(user: TestUser, title: string, visibility = 'private', cards = 3): Promise<{ deckId: string; cardIds: string[] }> {
    const res = await suite.server.api('POST', '/decks/import', {
      token: user.token, json: { deck: { title, lang: 'en', visibility, description: `About ${title}` }, cards: Array.from({ length: cards }, (_, i) => ({ front: `${title} ${i + 1}`, back: `B${i + 1}` })) },
    });
    assert.equal(res.status, 201, res.text);
    const deck = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: user.token });
    return { deckId: res.body.deckId, cardIds: deck.body.cards.map((c: any) => c.id) };
  }

  test('should put a deck in the trash after the confirm page, list it there, and restore it with its cards', async () => {
    const { deckId, cardIds } = await deckOf(owner, 'Into the trash');
    const browser = await signedIn(suite.server, owner);
    const editor = await browser.get(`/decks/${deckId}/edit`);
    assert.match(editor.text, new RegExp(`href="/decks/${deckId}/delete"[^>]*>Delete deck<`));
    const confirm = await browser.get(`/decks/${deckId}/delete`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.text, /go to the <a href="\/settings\/trash">trash<\/a>/);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).status, 200, 'the confirm page deletes nothing');
    const deleted = await browser.submit(confirm.text, `/decks/${deckId}/delete`);
    assert.equal(deleted.status, 303);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).status, 404);
    const trash = await browser.get(deleted.location!);
    assert.match(trash.text, /“Into the trash” is in the trash\./);
    assert.match(trash.text, /<th scope="row"[^>]*>Into the trash<\/th>/);
    // Each row's Restore tells a screen reader which deck it brings back.
    const trashedTitles = [...trash.text.matchAll(/<th scope="row"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);
    assert.deepEqual(buttonDescriptions(trash.text, 'Restore'), trashedTitles);
    assert.match(trash.text, /in 30 days/);
    const restored = await browser.submit(trash.text, `/settings/trash/${deckId}/restore`);
    assert.equal(restored.status, 303);
    assert.match((await browser.get(restored.location!)).text, /“Into the trash” is restored\./);
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(read.status, 200);
    assert.deepEqual(read.body.cards.map((c: any) => c.id), cardIds);
  });

  test('should give another person\'s deck the 404 page on delete and restore', async () => {
    const other = await suite.server.user();
    const { deckId } = await deckOf(other, 'Not yours');
    const browser = await signedIn(suite.server, owner);
    assert.equal((await browser.get(`/decks/${deckId}/delete`)).status, 404);
    const csrf = await browser.sessionCsrf();
    assert.equal((await browser.request('POST', `/decks/${deckId}/delete`, { _csrf: csrf })).status, 404);
    assert.equal((await browser.request('POST', `/settings/trash/${deckId}/restore`, { _csrf: csrf })).status, 404);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: other.token })).status, 200);
  });

  test('should list public decks only, find them by a word, and copy one into my decks', async () => {
    const author = await suite.server.user();
    const { deckId } = await deckOf(author, 'Photosynthesis basics', 'public');
    await deckOf(author, 'Photosynthesis unlisted', 'unlisted');
    await deckOf(author, 'Photosynthesis private', 'private');
    const anonymous = await signedOut(suite.server).get('/explore?q=photosynthesis');
    assert.equal(anonymous.status, 200);
    assert.match(anonymous.text, /Photosynthesis basics/);
    assert.doesNotMatch(anonymous.text, /unlisted|Photosynthesis private/);
    assert.doesNotMatch(anonymous.text, /Copy to my decks/, 'signed out: no copy button');
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/explore?q=photosynthesis');
    assert.deepEqual(buttonDescriptions(page.text, 'Copy to my decks'), ['Photosynthesis basics']);
    const copied = await browser.submit(page.text, `/explore/${deckId}/copy`);
    assert.equal(copied.status, 303, copied.text);
    const copyId = /^\/decks\/(dck_[\w-]+)\/edit\?saved=copied$/.exec(copied.location ?? '')?.[1];
    assert.ok(copyId && copyId !== deckId);
    const copy = await suite.server.api('GET', `/decks/${copyId}`, { token: owner.token });
    assert.equal(copy.body.title, 'Photosynthesis basics');
    assert.equal(copy.body.visibility, 'private');
    assert.equal(copy.body.cards.length, 3);
    assert.match((await browser.get(copied.location!)).text, /Copied into your decks/);
  });

  test('should not copy a private deck, nor without the CSRF token', async () => {
    const author = await suite.server.user();
    const { deckId } = await deckOf(author, 'Secret', 'private');
    const browser = await signedIn(suite.server, owner);
    const csrf = await browser.sessionCsrf();
    assert.equal((await browser.request('POST', `/explore/${deckId}/copy`, { _csrf: csrf })).status, 404);
    assert.equal((await browser.request('POST', `/explore/${deckId}/copy`, { _csrf: 'forged' })).status, 403);
  });

  test('should say in words that the deck limit stops a copy and a restore', async () => {
    const user = await suite.server.user();
    const author = await suite.server.user();
    const { deckId: publicId } = await deckOf(author, 'Popular', 'public');
    const first = await deckOf(user, 'First');
    const browser = await signedIn(suite.server, user);
    const confirm = await browser.get(`/decks/${first.deckId}/delete`);
    await browser.submit(confirm.text, `/decks/${first.deckId}/delete`);
    for (let i = 0; i < 20; i++) await deckOf(user, `Filler ${i}`, 'private', 1);
    const explore = await browser.get('/explore');
    const copy = await browser.submit(explore.text, `/explore/${publicId}/copy`);
    assert.equal(copy.location, '/explore?problem=limit');
    assert.match((await browser.get(copy.location)).text, /You have as many decks as this server allows/);
    const trash = await browser.get('/settings/trash');
    const restore = await browser.submit(trash.text, `/settings/trash/${first.deckId}/restore`);
    assert.equal(restore.location, '/settings/trash?problem=limit');
    assert.match((await browser.get(restore.location)).text, /role="alert"[^>]*>You have as many decks/);
  });
});
