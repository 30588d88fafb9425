// Managing decks in the browser, over HTTP on the run's store: New deck (a title, then the
// editor), /decks/import (pasted markdown; .md, .json, .csv and .apkg files as multipart uploads;
// warnings on the page the import redirects to), export (markdown, CSV, .apkg) read back by the
// importers, and the limits: CSRF, sign-in before a body is read, files refused on other pages,
// the deck capacity and the web bucket.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { signedIn, signedOut } from '../../helpers/web.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

const MARKDOWN = '---\nversion: 1\n---\n# Pasted deck\n\n## Front\nOne?\n\n## Back\nOne.\n\n---\n\n## Back\nOnly a back\n';
const APKG = path.join(import.meta.dirname, '../../fixtures/anki/genanki-js.apkg');

describe('managing decks in the browser', () => {
  let owner: TestUser;
  const suite = buildForSuite({ env: { DECK_LIMIT: '30' }, socket: true });
  before(async () => {
    owner = await suite.server.user();
  });

  test('should make an empty deck from a title and open its editor', async () => {
    const browser = await signedIn(suite.server, owner);
    const home = await browser.get('/');
    assert.match(home.text, /href="\/decks\/new">New deck</);
    const page = await browser.get('/decks/new');
    const made = await browser.submit(page.text, '/decks/new', { title: '  Spanish verbs  ' });
    assert.equal(made.status, 303, made.text);
    const deckId = /^\/decks\/(dck_[\w-]+)\/edit\?saved=created$/.exec(made.location ?? '')?.[1];
    assert.ok(deckId, made.location ?? '');
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(read.status, 200);
    assert.equal(read.body.title, 'Spanish verbs');
    assert.equal(read.body.visibility, 'private');
    assert.deepEqual(read.body.cards, []);
    const editor = await browser.get(made.location!);
    assert.equal(editor.status, 200);
    assert.match(editor.text, /Deck created\./);
  });

  test('should refuse a blank title naming the Title field, and keep nothing', async () => {
    const browser = await signedIn(suite.server, owner);
    const before = (await suite.server.api('GET', '/decks/capacity', { token: owner.token })).body.current_decks;
    const page = await browser.get('/decks/new');
    const refused = await browser.submit(page.text, '/decks/new', { title: '   ' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /role="alert"[^>]*>Title: cannot be empty\.</);
    assert.doesNotMatch(refused.text, /deck\.title|must NOT/);
    assert.equal((await suite.server.api('GET', '/decks/capacity', { token: owner.token })).body.current_decks, before);
  });

  test('should refuse a new deck without the CSRF token, and a signed-out one with a redirect to sign in', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/new');
    const forged = await browser.submit(page.text, '/decks/new', { title: 'Forged', _csrf: 'nope' });
    assert.equal(forged.status, 403);
    const anonymous = await signedOut(suite.server).request('POST', '/decks/new', { title: 'Anonymous' });
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.location, '/signin');
  });

  test('should import pasted markdown, then show its warnings by the labels of the pages, and a reload makes nothing more', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    assert.equal(page.status, 200);
    const imported = await browser.upload(page.text, '/decks/import', { markdown: MARKDOWN });
    assert.equal(imported.status, 303, imported.text);
    assert.match(imported.location ?? '', /^\/decks\/import\/done\?deck=dck_/);
    const count = (await suite.server.api('GET', '/decks/capacity', { token: owner.token })).body.current_decks;
    const done = await browser.get(imported.location!);
    const again = await browser.get(imported.location!);
    assert.equal(done.status, 200);
    assert.equal(again.text.length > 0, true);
    assert.equal((await suite.server.api('GET', '/decks/capacity', { token: owner.token })).body.current_decks, count, 'the result page makes nothing');
    assert.match(done.text, /Pasted deck/);
    assert.match(done.text, /2 cards/);
    assert.match(done.text, /No language was given/);
    assert.match(done.text, /A card has no front; only its back is shown\. Card 2\./);
    assert.doesNotMatch(done.text, /LANG_DEFAULTED|cards\[/);
  });

  test('should keep the pasted text and say which line when markdown cannot be read', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    const refused = await browser.upload(page.text, '/decks/import', { markdown: '# No front matter\n\n## Front\nA\n' });
    assert.equal(refused.status, 400);
    assert.match(refused.text, /Not imported/);
    assert.match(refused.text, /Line 1: the document must start with front matter/);
    assert.match(refused.text, /<textarea[^>]*># No front matter/);
  });

  test('should import a CSV file as a deck named after the file, and a JSON and a markdown file', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    const csv = new File(['front,back\nHola,Hello\nAdiós,Goodbye\n'], 'Spanish words.csv', { type: 'text/csv' });
    const imported = await browser.upload(page.text, '/decks/import', {}, { file: csv });
    assert.equal(imported.status, 303, imported.text);
    const deckId = new URL(imported.location!, suite.server.url).searchParams.get('deck');
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(read.body.title, 'Spanish words');
    assert.deepEqual(read.body.cards.map((c: any) => [c.front, c.back]), [['Hola', 'Hello'], ['Adiós', 'Goodbye']]);
    const json = new File([JSON.stringify({ deck: { title: 'From JSON', lang: 'en' }, cards: [{ front: 'Q', back: 'A' }] })], 'deck.json');
    const fromJson = await browser.upload((await browser.get('/decks/import')).text, '/decks/import', {}, { file: json });
    assert.equal(fromJson.status, 303, fromJson.text);
    const md = new File([MARKDOWN], 'cells.md', { type: 'text/markdown' });
    const fromMd = await browser.upload((await browser.get('/decks/import')).text, '/decks/import', {}, { file: md });
    assert.equal(fromMd.status, 303, fromMd.text);
  });

  test('should import an Anki package uploaded as a file', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    const apkg = new File([fs.readFileSync(APKG)], 'genanki.apkg', { type: 'application/octet-stream' });
    const imported = await browser.upload(page.text, '/decks/import', {}, { file: apkg });
    assert.equal(imported.status, 303, imported.text);
    const done = await browser.get(imported.location!);
    assert.match(done.text, /imported\./);
  });

  test('should refuse a file of another kind by saying which kinds it takes', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    const refused = await browser.upload(page.text, '/decks/import', {}, { file: new File(['hello'], 'notes.txt') });
    assert.equal(refused.status, 415);
    assert.match(refused.text, /Choose a \.md, \.json, \.csv or \.apkg file\./);
  });

  test('should refuse an upload without the CSRF token, a signed-out upload before reading it, and a file sent to a page that takes none', async () => {
    const browser = await signedIn(suite.server, owner);
    const page = await browser.get('/decks/import');
    const file = new File(['front,back\nA,B\n'], 'x.csv');
    const forged = await browser.upload(page.text, '/decks/import', { _csrf: 'forged' }, { file });
    assert.equal(forged.status, 403);
    const anonymous = await signedOut(suite.server).request('POST', '/decks/import', (() => { const f = new FormData(); f.append('file', file); return f; })());
    assert.equal(anonymous.status, 303);
    const newDeck = await browser.get('/decks/new');
    const elsewhere = await browser.upload(newDeck.text, '/decks/new', { title: 'With a file' }, { file });
    assert.equal(elsewhere.status, 413);
  });

  test('should export a deck as markdown, CSV and an Anki package that import back to the same cards', async () => {
    const created = await suite.server.api('POST', '/decks/import', {
      token: owner.token, json: { deck: { title: 'Export me', lang: 'en' }, cards: [{ front: 'Front *one*', back: 'Back one' }, { front: 'Two', back: 'Deux' }] },
    });
    const deckId = created.body.deckId;
    const browser = await signedIn(suite.server, owner);
    const editor = await browser.get(`/decks/${deckId}/edit`);
    for (const format of ['md', 'csv', 'apkg']) assert.match(editor.text, new RegExp(`href="/decks/${deckId}/export/${format}"`));
    const md = await fetch(`${suite.server.url}/decks/${deckId}/export/md`, { headers: { cookie: await cookieOf(browser) } });
    assert.equal(md.status, 200);
    assert.match(md.headers.get('content-disposition') ?? '', /attachment; filename="Export me\.md"/);
    const text = await md.text();
    assert.match(text, /Front \*one\*/);
    const csv = await fetch(`${suite.server.url}/decks/${deckId}/export/csv`, { headers: { cookie: await cookieOf(browser) } });
    assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(await csv.text(), /Two,Deux/);
    const apkg = await fetch(`${suite.server.url}/decks/${deckId}/export/apkg`, { headers: { cookie: await cookieOf(browser) } });
    assert.equal(apkg.status, 200);
    const bytes = Buffer.from(await apkg.arrayBuffer());
    assert.equal(bytes.subarray(0, 2).toString(), 'PK');
    const back = await suite.server.api('POST', '/decks/import', { token: owner.token, headers: { 'content-type': 'text/markdown' }, body: text });
    assert.equal(back.status, 201, back.text);
    const again = await suite.server.api('GET', `/decks/${back.body.deckId}`, { token: owner.token });
    assert.deepEqual(again.body.cards.map((c: any) => [c.front, c.back]), [['Front *one*', 'Back one'], ['Two', 'Deux']]);
  });

  test('should not export another person\'s deck', async () => {
    const other = await suite.server.user();
    const created = await suite.server.api('POST', '/decks/import', { token: other.token, json: { deck: { title: 'Theirs', lang: 'en' }, cards: [{ front: 'A', back: 'B' }] } });
    const browser = await signedIn(suite.server, owner);
    const res = await browser.get(`/decks/${created.body.deckId}/export/md`);
    assert.equal(res.status, 404);
  });

  test('should say the deck limit is reached, by the words of the pages', async () => {
    const user = await suite.server.user();
    for (let i = 0; i < 30; i++) {
      const res = await suite.server.api('POST', '/decks/import', { token: user.token, json: { deck: { title: `D${i}`, lang: 'en' }, cards: [{ front: 'A', back: 'B' }] } });
      assert.equal(res.status, 201);
    }
    const browser = await signedIn(suite.server, user);
    const page = await browser.get('/decks/new');
    const refused = await browser.submit(page.text, '/decks/new', { title: 'One too many' });
    assert.equal(refused.status, 403);
    assert.match(refused.text, /You have as many decks as this server allows \(30\)/);
  });
});

/** The Cookie header of a PageClient (its session and CSRF secret), for a plain fetch of a download. */
async function cookieOf(browser: Awaited<ReturnType<typeof signedIn>>): Promise<string> {
  return ['flashdeck_session', '_csrf', 'flashdeck_csrf'].map((n) => [n, browser.cookie(n)]).filter(([, v]) => v !== undefined).map(([n, v]) => `${n}=${v}`).join('; ');
}
