// Anki packages made in the test: zips (yazl) of collections written with better-sqlite3, in the
// legacy schema (11) and the current one (18, zstd in collection.anki21b), and hostile variants.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import BetterSqlite3 from 'better-sqlite3';
import protobuf from 'protobufjs';
import yazl from 'yazl';
import { SCHEMA_11 } from '../../src/modules/anki/anki-schema.ts';

export interface ZipEntry {
  name: string;
  data: Buffer;
  compress?: boolean;
}

export function zipOf(entries: readonly ZipEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const e of entries) zip.addBuffer(e.data, e.name, { compress: e.compress ?? true });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** Rewrites the central directory's uncompressed size of every entry (what a zip bomb declares). */
export function declareSizes(zip: Buffer, uncompressed: number): Buffer {
  const out = Buffer.from(zip);
  for (let at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02])); at !== -1; at = out.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)) {
    out.writeUInt32LE(uncompressed, at + 24);
  }
  return out;
}

/** Replaces every occurrence of a name in the zip (local headers and central directory) by one as long. */
export function renameEntry(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + 1)) Buffer.from(to).copy(out, at);
  return out;
}

function sqliteBytes(build: (db: BetterSqlite3.Database) => void): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-anki-test-'));
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

export interface TestNote {
  fields: string[];
  tags?: string;
  deck?: number;
  cloze?: boolean;
}

const BASIC = 1001;
const CLOZE = 1002;

/** A schema-11 collection: decks by id and name, a basic and a cloze notetype, these notes. */
export function legacyCollection(decks: Record<number, string>, notes: readonly TestNote[]): Buffer {
  return sqliteBytes((db) => {
    db.exec(SCHEMA_11);
    const models = {
      [BASIC]: { id: BASIC, name: 'Basic', type: 0, flds: [{ name: 'Front' }, { name: 'Back' }, { name: 'Extra' }] },
      [CLOZE]: { id: CLOZE, name: 'Cloze', type: 1, flds: [{ name: 'Text' }, { name: 'Back Extra' }] },
    };
    const deckJson = Object.fromEntries(Object.entries(decks).map(([id, name]) => [id, { id: Number(id), name, desc: '' }]));
    db.prepare("insert into col values (1, 0, 0, 0, 11, 0, 0, 0, '{}', ?, ?, '{}', '{}')").run(JSON.stringify(models), JSON.stringify(deckJson));
    writeNotes(db, notes, Number(Object.keys(decks)[0]));
  });
}

function writeNotes(db: BetterSqlite3.Database, notes: readonly TestNote[], firstDeck: number): void {
  const note = db.prepare("insert into notes values (?, ?, ?, 0, 0, ?, ?, '', 0, 0, '')");
  const card = db.prepare("insert into cards values (?, ?, ?, ?, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '')");
  db.transaction(() => {
    notes.forEach((n, i) => {
      note.run(i + 1, `g${i}`, n.cloze ? CLOZE : BASIC, n.tags ?? '', n.fields.join('\x1f'));
      card.run(i + 1, i + 1, n.deck ?? firstDeck, 0);
    });
  })();
}

const proto = protobuf.Root.fromJSON({
  nested: {
    PackageMetadata: { fields: { version: { type: 'int32', id: 1 } } },
    MediaEntries: { fields: { entries: { rule: 'repeated', type: 'MediaEntry', id: 1 } } },
    MediaEntry: { fields: { name: { type: 'string', id: 1 }, size: { type: 'uint32', id: 2 }, sha1: { type: 'bytes', id: 3 } } },
    NotetypeConfig: { fields: { kind: { type: 'int32', id: 1 } } },
  },
});

const encode = (type: string, value: object) => Buffer.from(proto.lookupType(type).encode(proto.lookupType(type).create(value)).finish());

/** A schema-18 collection, as Anki 2.1.50+ writes it: notetypes, fields and decks in tables. */
export function modernCollection(decks: Record<number, string>, notes: readonly TestNote[]): Buffer {
  return sqliteBytes((db) => {
    db.exec(SCHEMA_11);
    db.exec(`
      CREATE TABLE notetypes (id integer not null primary key, name text not null, mtime_secs integer not null, usn integer not null, config blob not null);
      CREATE TABLE fields (ntid integer not null, ord integer not null, name text not null, config blob not null, primary key (ntid, ord)) without rowid;
      CREATE TABLE decks (id integer primary key not null, name text not null, mtime_secs integer not null, usn integer not null, common blob not null, kind blob not null);`);
    db.prepare("insert into col values (1, 0, 0, 0, 18, 0, 0, 0, '', '', '', '', '')").run();
    db.prepare('insert into notetypes values (?, ?, 0, 0, ?)').run(BASIC, 'Basic', encode('NotetypeConfig', {}));
    db.prepare('insert into notetypes values (?, ?, 0, 0, ?)').run(CLOZE, 'Cloze', encode('NotetypeConfig', { kind: 1 }));
    const field = db.prepare("insert into fields values (?, ?, ?, x'')");
    ['Front', 'Back', 'Extra'].forEach((name, ord) => field.run(BASIC, ord, name));
    ['Text', 'Back Extra'].forEach((name, ord) => field.run(CLOZE, ord, name));
    // Native deck names separate levels with U+001F.
    for (const [id, name] of Object.entries(decks)) db.prepare("insert into decks values (?, ?, 0, 0, x'', x'')").run(Number(id), name.replaceAll('::', '\x1f'));
    writeNotes(db, notes, Number(Object.keys(decks)[0]));
  });
}

/** A package of the latest format: meta, zstd collection.anki21b, zstd protobuf media map, zstd media. */
export async function latestPackage(collection: Buffer, media: Record<string, Buffer> = {}): Promise<Buffer> {
  const names = Object.keys(media);
  return zipOf([
    { name: 'meta', data: encode('PackageMetadata', { version: 3 }) },
    { name: 'collection.anki21b', data: zlib.zstdCompressSync(collection), compress: false },
    // Anki adds a legacy collection for old clients; an importer must prefer the new one.
    { name: 'collection.anki2', data: legacyCollection({ 1: 'Default' }, [{ fields: ['Please update to the latest Anki version', ''] }]) },
    { name: 'media', data: zlib.zstdCompressSync(encode('MediaEntries', { entries: names.map((name) => ({ name, size: media[name].length })) })), compress: false },
    ...names.map((name, i) => ({ name: String(i), data: zlib.zstdCompressSync(media[name]), compress: false })),
  ]);
}

/** A legacy package: collection.anki2, a JSON media map, media files as they are. */
export function legacyPackage(collection: Buffer, media: Record<string, Buffer> = {}): Promise<Buffer> {
  const names = Object.keys(media);
  return zipOf([
    { name: 'collection.anki2', data: collection },
    { name: 'media', data: Buffer.from(JSON.stringify(Object.fromEntries(names.map((n, i) => [String(i), n])))) },
    ...names.map((name, i) => ({ name: String(i), data: media[name] })),
  ]);
}
