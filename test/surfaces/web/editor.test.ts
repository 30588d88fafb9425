// The owner editor (/decks/:deckId/edit) over HTTP, on the run's store: saves through the API's
// services with the deck's version as If-Match, a concurrent change shown without losing what was
// typed, the web card-write bucket.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CARD_WRITE_LIMITS } from '../../../src/policy/policy.ts';
import { formAt, signedIn, signedOut } from '../../helpers/web.ts';
import { png, SVG } from '../../helpers/images.ts';
import { manualClock, type TestServer, type TestUser, buildForSuite } from '../../helpers/server.ts';

async function importDeck(server: TestServer, user: TestUser, cards = 3): Promise<{ deckId: string; cardIds: string[] }> {
  const res = await server.api('POST', '/decks/import', {
    token: user.token,
    json: { deck: { title: 'Editor deck', lang: 'en' }, cards: Array.from({ length: cards }, (_, i) => ({ front: `Front ${i + 1}`, back: `Back ${i + 1}` })) },
  });
  assert.equal(res.status, 201, res.text);
  const deck = await server.api('GET', `/decks/${res.body.deckId}`, { token: user.token });
  return { deckId: res.body.deckId, cardIds: deck.body.cards.map((c: any) => c.id) };
}

describe('owner editor', () => {
  const time = manualClock('2026-03-02T10:00:05Z');
  let owner: TestUser;
  const suite = buildForSuite({ overrides: { clock: time.clock }, socket: true });
  before(async () => {
    owner = await suite.server.user();
  });

  test('should save a card edited in the editor with the deck\'s version as If-Match, and the API reads the change', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[1]}`);
    assert.equal(page.status, 200);
    const action = `/decks/${deckId}/edit/cards/${cardIds[1]}`;
    const before = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(formAt(page.text, action).fields.version, before.body.version);
    const saved = await browser.submit(page.text, action, { front: 'Edited **front**', backType: 'text', subject: 'Biology', backImageUrl: 'https://img.example/a.png', backImageAlt: 'A cell' });
    assert.equal(saved.status, 303, saved.text);
    const card = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[1];
    assert.equal(card.front, 'Edited **front**');
    assert.equal(card.back, 'Back 2');
    assert.equal(card.extras.backType, 'text');
    assert.equal(card.extras.subject, 'Biology');
    assert.deepEqual(card.backMedia, { imageUrl: 'https://img.example/a.png', imageAlt: 'A cell' });
    const shown = await browser.get(saved.location!);
    assert.match(shown.text, /Card saved\./);
    assert.match(shown.text, /<strong>front<\/strong>/, 'the preview comes from the renderer');
  });

  test('should refuse a save over a concurrent API change, say so, keep what was typed, and save on the second try', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`);
    time.ms += 1000;
    const elsewhere = await suite.server.api('PATCH', `/decks/${deckId}/cards/${cardIds[0]}`, { token: owner.token, json: { back: 'Changed through the API' } });
    assert.equal(elsewhere.status, 200);
    const action = `/decks/${deckId}/edit/cards/${cardIds[0]}`;
    const typed = 'What I typed <kbd>meanwhile</kbd>\nover two lines';
    const conflict = await browser.submit(page.text, action, { front: typed });
    assert.equal(conflict.status, 409);
    assert.match(conflict.text, /role="alert"/);
    assert.match(conflict.text, /This deck was changed meanwhile/);
    const form = formAt(conflict.text, action);
    assert.equal(form.fields.front, typed, 'the typed text is kept');
    assert.match(conflict.text, /Saved version[\s\S]*Changed through the API/, 'the concurrent change is shown');
    const unchanged = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(unchanged.body.cards[0].front, 'Front 1', 'nothing was overwritten');
    assert.equal(form.fields.version, unchanged.body.version, 'a second save is checked against the current version');
    const again = await browser.request('POST', action, form.fields);
    assert.equal(again.status, 303);
    const after = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(after.body.cards[0].front, typed);
  });

  test('should keep what was typed when the API\'s validation refuses a field', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`);
    const action = `/decks/${deckId}/edit/cards/${cardIds[0]}`;
    const res = await browser.submit(page.text, action, { front: 'Kept', frontImageUrl: 'http://insecure.example/x.png' });
    assert.equal(res.status, 400);
    assert.match(res.text, /Front image URL: an https:\/\/ address, or a path on this site starting with \/\./, 'the field named by its label');
    assert.doesNotMatch(res.text, /frontMedia|imageUrl must/, 'never by its API path');
    assert.equal(formAt(res.text, action).fields.front, 'Kept');
    assert.equal(formAt(res.text, action).fields.frontImageUrl, 'http://insecure.example/x.png');
  });

  test('should show the deck details as saved by a concurrent change beside what was typed, and overwrite them only on the second save', async () => {
    const { deckId } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit`);
    time.ms += 1000;
    const elsewhere = await suite.server.api('PATCH', `/decks/${deckId}`, { token: owner.token, json: { description: 'Written <b>through</b> the API' } });
    assert.equal(elsewhere.status, 200);
    const action = `/decks/${deckId}/edit/deck`;
    const conflict = await browser.submit(page.text, action, { title: 'Typed title' });
    assert.equal(conflict.status, 409);
    assert.match(conflict.text, /This deck was changed meanwhile/);
    assert.equal(formAt(conflict.text, action).fields.title, 'Typed title', 'the typed title is kept');
    assert.match(conflict.text, /Saved version[\s\S]*Written &lt;b&gt;through&lt;\/b&gt; the API/, 'the concurrent change is shown, escaped');
    const unchanged = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(unchanged.body.title, 'Editor deck', 'nothing was overwritten');
    assert.equal(unchanged.body.description, 'Written <b>through</b> the API');
  });

  test('should add a card, move it to the top, and save the deck details, all read back through the API', async () => {
    const { deckId } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    let page = await browser.get(`/decks/${deckId}/edit`);
    const added = await browser.submit(page.text, `/decks/${deckId}/edit/cards`, { front: 'New front', back: 'New back', cardType: 'definition' });
    assert.equal(added.status, 303, added.text);
    let deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body;
    assert.equal(deck.cards.length, 4);
    const newId = deck.cards[3].id;
    assert.equal(deck.cards[3].extras.cardType, 'definition');
    assert.equal(added.location, `/decks/${deckId}/edit?added=${newId}`);
    page = await browser.get(added.location);
    assert.match(page.text, /Card 4 added\./);
    assert.equal(formAt(page.text, `/decks/${deckId}/edit/cards`).fields.front, '', 'after Add card, the form is the next new card\'s');
    page = await browser.get(`/decks/${deckId}/edit?card=${newId}`);
    const moved = await browser.submit(page.text, `/decks/${deckId}/edit/cards/${newId}/move`, { to: '1' });
    assert.equal(moved.status, 303, moved.text);
    deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body;
    assert.deepEqual(deck.cards.map((c: any) => c.front), ['New front', 'Front 1', 'Front 2', 'Front 3']);
    assert.deepEqual(deck.cards.map((c: any) => c.order), [0, 1, 2, 3]);
    page = await browser.get(moved.location!);
    assert.doesNotMatch(page.text, /action="[^"]*\/edit\/deck"/, 'with a card open, the deck details form is not on the page (one Save per view)');
    page = await browser.get(`/decks/${deckId}/edit`);
    const details = await browser.submit(page.text, `/decks/${deckId}/edit/deck`, {
      title: 'Renamed', description: 'About cells', tags: 'bio, exam,  , Bio', visibility: 'unlisted', lang: 'fr',
    });
    assert.equal(details.status, 303, details.text);
    deck = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body;
    assert.equal(deck.title, 'Renamed');
    assert.equal(deck.description, 'About cells');
    assert.deepEqual(deck.tags, ['bio', 'exam']);
    assert.equal(deck.visibility, 'unlisted');
    assert.equal(deck.lang, 'fr');
  });

  test('should render the live preview with the card renderer, escaping what the html allowlist does not keep', async () => {
    const { deckId } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit`);
    const fields = formAt(page.text, `/decks/${deckId}/edit/cards`).fields;
    const res = await browser.request('POST', `/decks/${deckId}/edit/preview`, { ...fields, front: '<mark>x</mark><script>alert(1)</script>', frontType: 'html', back: '- ✓ yes' });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(res.text, /<div class="card-side card-front content-html"><mark>x<\/mark><\/div>/);
    assert.match(res.text, /<li class="marker-true">yes<\/li>/);
  });

  test('should give the editor of another person\'s deck the 404 page, and its saves too', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const other = await signedIn(suite.server, await suite.server.user());
    assert.equal((await other.get(`/decks/${deckId}/edit`)).status, 404);
    const res = await other.request('POST', `/decks/${deckId}/edit/cards/${cardIds[0]}`, { _csrf: await other.sessionCsrf(), version: '*', front: 'hijack' });
    assert.equal(res.status, 404);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[0].front, 'Front 1');
  });

  test(`should refuse card write ${CARD_WRITE_LIMITS.perMinute + 1} of a minute with the 429 page and Retry-After, apart from the person's token bucket`, async () => {
    time.ms = Date.parse('2026-03-02T11:00:05Z');
    const { deckId, cardIds } = await importDeck(suite.server, owner, 2);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`);
    const action = `/decks/${deckId}/edit/cards/${cardIds[0]}/move`;
    const fields = formAt(page.text, action).fields;
    for (let i = 0; i < CARD_WRITE_LIMITS.perMinute; i++) {
      const res = await browser.request('POST', action, { ...fields, to: '1' });
      assert.equal(res.status, 303, `write ${i + 1}: ${res.status}`);
    }
    const refused = await browser.request('POST', action, { ...fields, to: '1' });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get('retry-after'), '55');
    assert.match(refused.headers.get('content-type') ?? '', /^text\/html/);
    // The API's token bucket is another bucket: the same person's token still writes.
    const api = await suite.server.api('PATCH', `/decks/${deckId}/cards/${cardIds[0]}`, { token: owner.token, json: { front: 'Through the API' } });
    assert.equal(api.status, 200);
    time.ms += 60_000;
    const fresh = formAt((await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`)).text, action).fields;
    assert.equal((await browser.request('POST', action, { ...fresh, to: '1' })).status, 303, 'the next minute admits again');
  });

  test('should store an image chosen in the card form in the media store and show it on the card', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`);
    const action = `/decks/${deckId}/edit/cards/${cardIds[0]}`;
    const image = new File([png(8, 6)], 'cell.png', { type: 'image/png' });
    const saved = await browser.upload(page.text, action, { frontImageAlt: 'A cell' }, { frontImageFile: image });
    assert.equal(saved.status, 303, saved.text);
    const card = (await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards[0];
    assert.match(card.frontMedia.imageUrl, /^\/media\/[0-9a-f]{64}\.png$/);
    assert.equal(card.frontMedia.imageAlt, 'A cell');
    const served = await fetch(`${suite.server.url}${card.frontMedia.imageUrl}`);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), png(8, 6));
  });

  test('should refuse an SVG chosen as an image, naming the Image file field, and keep what was typed', async () => {
    const { deckId } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit`);
    const action = `/decks/${deckId}/edit/cards`;
    const refused = await browser.upload(page.text, action, { front: 'Typed front' }, { backImageFile: new File([SVG], 'x.svg', { type: 'image/svg+xml' }) });
    assert.equal(refused.status, 415);
    assert.match(refused.text, /Image file: SVG images are not accepted/);
    assert.equal(formAt(refused.text, action).fields.front, 'Typed front');
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards.length, 3, 'no card was added');
  });

  test('should list only the cards holding every word searched, in any side, and keep the search while a card is open', async () => {
    const res = await suite.server.api('POST', '/decks/import', {
      token: owner.token,
      json: { deck: { title: 'Search deck', lang: 'es' }, cards: [
        { front: 'Hola', back: 'Hello' }, { front: 'Adiós', back: 'Goodbye, see you' }, { front: 'Gracias', back: 'Thank you' },
      ] },
    });
    const deckId = res.body.deckId;
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?q=${encodeURIComponent('adios SEE')}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /1 card matches/);
    const links = [...page.text.matchAll(/<li><a href="([^"]+)"[^>]*><span class="card-number">Card (\d+):<\/span> ([^<]*)<\/a>/g)];
    assert.deepEqual(links.map((m) => [m[2], m[3]]), [['2', 'Adiós']]);
    assert.match(links[0][1], /(?:\?|&amp;)q=adios\+SEE/);
    const all = await browser.get(`/decks/${deckId}/edit?q=you`);
    assert.match(all.text, /2 cards match/);
  });

  test('should delete the open card with Delete card, and the later cards move up', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[1]}`);
    const action = `/decks/${deckId}/edit/cards/${cardIds[1]}/delete`;
    assert.equal((await browser.submit(page.text, action, { _csrf: 'forged' })).status, 403);
    const deleted = await browser.submit(page.text, action);
    assert.equal(deleted.status, 303, deleted.text);
    assert.equal(deleted.location, `/decks/${deckId}/edit?saved=deleted`);
    assert.match((await browser.get(`/decks/${deckId}/edit?saved=deleted`)).text, /Card deleted\./);
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.deepEqual(read.body.cards.map((c: any) => [c.id, c.order]), [[cardIds[0], 0], [cardIds[2], 1]]);
  });

  test('should not delete a card over a change made meanwhile, and say so', async () => {
    const { deckId, cardIds } = await importDeck(suite.server, owner);
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get(`/decks/${deckId}/edit?card=${cardIds[0]}`);
    time.ms += 1000;
    assert.equal((await suite.server.api('PATCH', `/decks/${deckId}`, { token: owner.token, json: { title: 'Renamed' } })).status, 200);
    const refused = await browser.submit(page.text, `/decks/${deckId}/edit/cards/${cardIds[0]}/delete`);
    assert.equal(refused.status, 409);
    assert.match(refused.text, /This deck was changed meanwhile/);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).body.cards.length, 3);
  });

  test('should send a signed-out visitor of the editor elsewhere, never show the form', async () => {
    const { deckId } = await importDeck(suite.server, owner);
    const res = await signedOut(suite.server).get(`/decks/${deckId}/edit`);
    assert.notEqual(res.status, 200);
    assert.doesNotMatch(res.text, /Deck details/);
  });
});
