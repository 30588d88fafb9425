// Every hostile package gets the error envelope with a code that says why, quickly, and leaves
// nothing behind.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { declareSizes, latestPackage, legacyCollection, legacyPackage, modernCollection, renameEntry, zipOf } from '../../helpers/anki.ts';
import { noisyPng, png } from '../../helpers/images.ts';
import { mediaRows } from '../../helpers/media-rows.ts';
import { type ApiResponse, buildForSuite } from '../../helpers/server.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

const NOTES = [{ fields: ['Capital of France?', 'Paris<img src="p.png">'] }];

describe('POST /decks/import/apkg: formats and hostile packages', () => {
  const suite = buildForSuite({ env: { DECK_LIMIT: '3' } });

  const importApkg = (body: Buffer, as = suite.user.token) =>
    suite.server.api('POST', '/decks/import/apkg', { token: as, body, headers: { 'content-type': 'application/zip' } });
  const deckCount = async (as = suite.user.token) => (await suite.server.api('GET', '/decks?limit=100', { token: as })).body.items.length as number;

  test('should import the latest format: a zstd anki21b collection of schema 18, a protobuf media map and zstd media', async () => {
    const collection = modernCollection({ 7: 'Geo::Europe' }, [
      ...NOTES,
      { fields: ['{{c1::Rome}} is in {{c2::Italy}}', ''], cloze: true, tags: ' geo  europe ' },
    ]);
    const res = await importApkg(await latestPackage(collection, { 'p.png': png(4, 4) }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.decks.map((d: { title: string }) => d.title), ['Geo::Europe'], 'the anki21b collection wins over the legacy one');
    const deck = (await suite.server.api('GET', `/decks/${res.body.decks[0].deckId}`, { token: suite.user.token })).body;
    assert.deepEqual(deck.cards.map((c: { front: string }) => c.front), ['Capital of France?', '[...] is in Italy', 'Rome is in [...]']);
    assert.match(deck.cards[0].backMedia.imageUrl, /^\/media\/[0-9a-f]{64}\.png$/);
    assert.deepEqual(deck.cards[1].extras.tags, ['geo', 'europe']);
  });

  test('should split an Anki deck of more than 250 cards with DECK_SPLIT', async () => {
    const notes = Array.from({ length: 260 }, (_, i) => ({ fields: [`Q${i}`, `A${i}`] }));
    const res = await importApkg(await legacyPackage(legacyCollection({ 5: 'Big' }, notes)));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.body.decks.map((d: { title: string; cardCount: number }) => [d.title, d.cardCount]), [['Big (1/2)', 250], ['Big (2/2)', 10]]);
    assert.equal(res.body.warnings[0].code, 'DECK_SPLIT');
  });

  test('should refuse more entries than it reads with ZIP_TOO_MANY_ENTRIES', async () => {
    const entries = Array.from({ length: 20_001 }, (_, i) => ({ name: String(i), data: Buffer.alloc(0), compress: false }));
    assertError(await importApkg(await zipOf(entries)), 413, 'ZIP_TOO_MANY_ENTRIES');
  });

  test('should refuse an entry declaring more than it reads with ZIP_ENTRY_TOO_LARGE', async () => {
    const zip = await zipOf([{ name: 'collection.anki2', data: randomBytes(1000) }]);
    assertError(await importApkg(declareSizes(zip, 300 * 1024 * 1024)), 413, 'ZIP_ENTRY_TOO_LARGE');
  });

  test('should refuse entries declaring more than 1 GiB together with ZIP_TOO_LARGE', async () => {
    // Each entry alone passes (under 256 MiB, compressed less than 200 to 1); five are too many.
    const zip = await zipOf(Array.from({ length: 5 }, (_, i) => ({ name: String(i), data: randomBytes(1_320_000) })));
    assertError(await importApkg(declareSizes(zip, 250 * 1024 * 1024)), 413, 'ZIP_TOO_LARGE');
  });

  test('should refuse an entry compressed more than 200 to 1 with ZIP_RATIO_TOO_HIGH before unpacking it', async () => {
    const bomb = await zipOf([{ name: 'collection.anki2', data: Buffer.alloc(64 * 1024 * 1024) }]);
    assert.ok(bomb.length < 200_000);
    assertError(await importApkg(bomb), 413, 'ZIP_RATIO_TOO_HIGH');
  });

  test('should refuse an entry name that climbs out with ZIP_UNSAFE_PATH', async () => {
    const zip = await zipOf([{ name: 'aa/evil', data: Buffer.from('x') }, { name: 'collection.anki2', data: legacyCollection({ 1: 'D' }, NOTES) }]);
    assertError(await importApkg(renameEntry(zip, 'aa/evil', '../evil')), 400, 'ZIP_UNSAFE_PATH');
    const absolute = await zipOf([{ name: 'xetc/passwd', data: Buffer.from('x') }]);
    assertError(await importApkg(renameEntry(absolute, 'xetc/passwd', '/etc/passwd')), 400, 'ZIP_UNSAFE_PATH');
  });

  test('should refuse a corrupt or truncated zip with ZIP_INVALID', async () => {
    const good = await legacyPackage(legacyCollection({ 1: 'D' }, NOTES));
    assertError(await importApkg(good.subarray(0, Math.floor(good.length / 2))), 400, 'ZIP_INVALID');
    assertError(await importApkg(Buffer.from('PK\x03\x04 this is not a zip at all')), 400, 'ZIP_INVALID');
  });

  test('should refuse a package without a collection with APKG_NO_COLLECTION', async () => {
    assertError(await importApkg(await zipOf([{ name: 'media', data: Buffer.from('{}') }])), 400, 'APKG_NO_COLLECTION');
  });

  test('should refuse a collection that is not SQLite with APKG_NOT_SQLITE', async () => {
    assertError(await importApkg(await zipOf([{ name: 'collection.anki2', data: Buffer.from('SQLite format 3\0 but not really'.repeat(200)) }])), 400, 'APKG_NOT_SQLITE');
  });

  test('should refuse a collection of the wrong schema with APKG_SCHEMA_INVALID', async () => {
    const noNotes = sqlite((db) => { db.exec("create table col (id, ver, models, decks); create table cards (id, nid, did, ord, odid); insert into col values (1, 11, '{}', '{}')"); });
    const res = await importApkg(await zipOf([{ name: 'collection.anki2', data: noNotes }]));
    assertError(res, 400, 'APKG_SCHEMA_INVALID');
    assert.equal(res.body.error.details.table, 'notes');
    const viewed = sqlite((db) => {
      db.exec("create table col (id, ver, models, decks); create table cards (id, nid, did, ord, odid); create table real_notes (id, mid, flds, tags); create view notes as select * from real_notes");
    });
    assertError(await importApkg(await zipOf([{ name: 'collection.anki2', data: viewed }])), 400, 'APKG_SCHEMA_INVALID');
    const generated = sqlite((db) => {
      db.exec("create table col (id, ver, models, decks); create table cards (id, nid, did, ord, odid); create table notes (id, mid, tags, flds text as (printf('%.*c', 1000000, 'x')))");
    });
    assertError(await importApkg(await zipOf([{ name: 'collection.anki2', data: generated }])), 400, 'APKG_SCHEMA_INVALID');
  });

  test('should leave out a truncated image, SVG and a 50-megapixel PNG, each with a warning that says why', async () => {
    const collection = legacyCollection({ 1: 'Images' }, [
      { fields: ['Q1 <img src="fake.png">', 'A'] },
      { fields: ['Q2 <img src="x.svg">', 'A'] },
      { fields: ['Q3 <img src="big.png">', 'A'] },
    ]);
    const someone = await suite.server.user();
    const res = await importApkg(await legacyPackage(collection, {
      'fake.png': png(2, 2).subarray(0, 20), 'x.svg': Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      'big.png': png(10_000, 5_000, 0, { pixels: false }),
    }), someone.token);
    assert.equal(res.status, 201, res.text);
    const warnings = res.body.decks[0].warnings.map((w: { message: string }) => w.message).join('\n');
    assert.match(warnings, /IMAGE_SVG_REFUSED/);
    assert.match(warnings, /IMAGE_DIMENSIONS_TOO_LARGE/);
    assert.match(warnings, /fake\.png.*IMAGE_UNREADABLE/);
  });

  test('should leave nothing behind when the import fails at deck capacity: no deck, no image', async () => {
    const someone = await suite.server.user();
    const imagesBefore = (await mediaRows(suite.server)).length;
    const decks = { 1: 'One', 2: 'Two', 3: 'Three', 4: 'Four' };
    const notes = [1, 2, 3, 4].map((deck) => ({ fields: [`Q${deck}`, `A <img src="i${deck}.png">`], deck }));
    const media = Object.fromEntries([1, 2, 3, 4].map((d) => [`i${d}.png`, png(d + 20, 3, d)]));
    assertError(await importApkg(await legacyPackage(legacyCollection(decks, notes), media), someone.token), 403, 'DECK_LIMIT_REACHED');
    assert.equal(await deckCount(someone.token), 0);
    assert.equal((await mediaRows(suite.server)).length, imagesBefore);
  });
});

describe('POST /decks/import/apkg: images and the media quota', () => {
  const suite = buildForSuite({ env: { MEDIA_QUOTA_BYTES: '6000', DECK_LIMIT: '1' }, socket: true });

  const importApkg = (body: Buffer, as: string) =>
    suite.server.api('POST', '/decks/import/apkg', { token: as, body, headers: { 'content-type': 'application/zip' } });
  const deckCount = async (as: string) => (await suite.server.api('GET', '/decks?limit=100', { token: as })).body.items.length as number;
  const packageOf = (decks: number, media: Record<string, Buffer>) => legacyPackage(legacyCollection(
    Object.fromEntries(Array.from({ length: decks }, (_, i) => [i + 1, `Deck ${i + 1}`])),
    Object.keys(media).map((name, i) => ({ fields: [`Q${i}`, `A <img src="${name}">`], deck: (i % decks) + 1 })),
  ), media);

  test('should refuse images past the media quota with MEDIA_QUOTA_EXCEEDED, leaving no deck and no image', async () => {
    const someone = await suite.server.user();
    const imagesBefore = (await mediaRows(suite.server)).length;
    const res = await importApkg(await packageOf(1, { 'a.png': noisyPng(60, 60), 'b.png': noisyPng(61, 60) }), someone.token);
    assertError(res, 403, 'MEDIA_QUOTA_EXCEEDED');
    assert.equal(res.body.error.details.quotaBytes, 6000);
    assert.equal(await deckCount(someone.token), 0);
    assert.equal((await mediaRows(suite.server)).length, imagesBefore);
  });

  test('should keep an image someone else owns when an import that brought it too fails', async () => {
    const owner = await suite.server.user();
    const shared = png(30, 4, 77);
    const uploaded = await suite.server.api('POST', '/media', { token: owner.token, body: shared, headers: { 'content-type': 'image/png' } });
    assert.equal(uploaded.status, 201, uploaded.text);
    const someone = await suite.server.user();
    const imagesBefore = (await mediaRows(suite.server)).length;
    // Two Anki decks for a user who may have one: the import fails once its images are written.
    assertError(await importApkg(await packageOf(2, { 's.png': shared, 'n.png': png(31, 4, 78) }), someone.token), 403, 'DECK_LIMIT_REACHED');
    assert.equal((await mediaRows(suite.server)).length, imagesBefore, 'the new image is gone, the shared one stays');
    const served = await fetch(`${suite.server.url}${uploaded.body.url as string}`);
    assert.equal(served.status, 200);
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), shared);
  });
});

describe('POST /decks/import/apkg: a collection crafted to be slow', () => {
  const suite = buildForSuite({ env: { APKG_TIME_LIMIT_MS: '300' }, socket: true });

  const importApkg = (body: Buffer) =>
    suite.server.api('POST', '/decks/import/apkg', { token: suite.user.token, body, headers: { 'content-type': 'application/zip' } });

  test('should refuse an SQLite file crafted to be slow with APKG_TOO_SLOW, and keep serving meanwhile', async () => {
    // Millions of card rows of one note: nothing to refuse on its face, only slow to read.
    const slow = sqlite((db) => {
      db.exec(SCHEMA_SLOW);
      db.exec("insert into col values (1, 0, 0, 0, 11, 0, 0, 0, '{}', '{}', '{}', '{}', '{}')");
      db.exec(`with recursive n(i) as (select 1 union all select i + 1 from n where i < 3000000)
        insert into cards select i, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '' from n`);
    });
    const body = await zipOf([{ name: 'collection.anki2', data: slow }]);
    const pending = importApkg(body);
    const health = await fetch(`${suite.server.url}/healthz`);
    assert.equal(health.status, 200, 'another request is answered while the package is read');
    assertError(await pending, 400, 'APKG_TOO_SLOW');
  });

});

const SCHEMA_SLOW = `
CREATE TABLE col (id integer primary key, crt integer, mod integer, scm integer, ver integer, dty integer, usn integer, ls integer, conf text, models text, decks text, dconf text, tags text);
CREATE TABLE notes (id integer primary key, guid text, mid integer, mod integer, usn integer, tags text, flds text, sfld integer, csum integer, flags integer, data text);
CREATE TABLE cards (id integer primary key, nid integer, did integer, ord integer, mod integer, usn integer, type integer, queue integer, due integer, ivl integer, factor integer, reps integer, lapses integer, left integer, odue integer, odid integer, flags integer, data text);`;

function sqlite(build: (db: BetterSqlite3.Database) => void): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-hostile-'));
  try {
    const file = path.join(dir, 'c.sqlite');
    const db = new BetterSqlite3(file);
    build(db);
    db.close();
    return fs.readFileSync(file);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
