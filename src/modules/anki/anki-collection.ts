// An Anki collection (SQLite), opened read-only with better-sqlite3 from a temporary file and read
// as plain data. Every input is hostile: the file must be SQLite, the tables Anki's (real tables,
// no view or virtual table in their place, no generated column), and schema-stored SQL may call no
// function (trusted_schema off). The caller bounds the time (the import runs in a worker it ends).
import BetterSqlite3 from 'better-sqlite3';
import { AppError } from '../../errors.ts';
import { notetypeIsCloze } from './anki-protobuf.ts';

export interface AnkiNotetype {
  readonly name: string;
  readonly cloze: boolean;
  readonly fields: readonly string[];
}

export interface AnkiNote {
  readonly id: number;
  readonly notetypeId: number;
  readonly fields: readonly string[];
  readonly tags: readonly string[];
  /** The deck of the note's first card (its home deck when the card sits in a filtered deck). */
  readonly deckId: number;
}

export interface AnkiCollection {
  /** Deck id -> full name, `Parent::Child`. */
  readonly decks: ReadonlyMap<number, { name: string; description: string | null }>;
  readonly notetypes: ReadonlyMap<number, AnkiNotetype>;
  /** Notes that have a card, in id (creation) order. */
  readonly notes: readonly AnkiNote[];
}

/** Notes read at most: a user can hold 100 decks of 250 cards, so far fewer ever import. */
export const MAX_NOTES = 50_000;

/** Columns each table must have (schema 11 and 18 alike for these). */
const REQUIRED: Record<string, readonly string[]> = {
  col: ['id', 'ver', 'models', 'decks'],
  notes: ['id', 'mid', 'flds', 'tags'],
  cards: ['id', 'nid', 'did', 'ord', 'odid'],
};
const SCHEMA_18: Record<string, readonly string[]> = {
  notetypes: ['id', 'name', 'config'],
  fields: ['ntid', 'ord', 'name'],
  decks: ['id', 'name'],
};

function schemaInvalid(table: string, why: string): AppError {
  return new AppError('APKG_SCHEMA_INVALID', `The collection's ${table} table ${why}; this is not an Anki 2.1 collection`, { table });
}

type Db = BetterSqlite3.Database;

function checkTable(db: Db, table: string, columns: readonly string[]): void {
  const row = db.prepare<[string], { type: string; sql: string | null }>("select type, sql from sqlite_schema where name = ? and type in ('table', 'view')").get(table);
  if (row === undefined) throw schemaInvalid(table, 'is missing');
  if (row.type !== 'table' || /^\s*create\s+virtual/i.test(row.sql ?? '')) throw schemaInvalid(table, 'is not a plain table');
  const info = db.prepare<[], { name: string; hidden: number }>(`select name, hidden from pragma_table_xinfo('${table}')`).all();
  if (info.some((c) => c.hidden !== 0)) throw schemaInvalid(table, 'has a generated or hidden column');
  const names = new Set(info.map((c) => c.name));
  const missing = columns.find((c) => !names.has(c));
  if (missing !== undefined) throw schemaInvalid(table, `has no ${missing} column`);
}

function open(path: string): Db {
  let db: Db;
  try {
    db = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
    // Reading the schema is the first thing that needs the file to be SQLite.
    db.pragma('trusted_schema = OFF');
    db.pragma('query_only = ON');
    db.pragma('cell_size_check = ON');
    db.pragma('mmap_size = 0');
    db.pragma('cache_size = -16384');
    db.prepare('select count(*) from sqlite_schema').get();
  } catch {
    throw new AppError('APKG_NOT_SQLITE', "The package's collection is not an SQLite database");
  }
  return db;
}

function hasTable(db: Db, name: string): boolean {
  return db.prepare("select 1 from sqlite_schema where type = 'table' and name = ?").get(name) !== undefined;
}

/** Schema 11 keeps deck and notetype definitions as JSON in `col`; 18 in tables of their own. */
function legacyDefinitions(db: Db): Pick<AnkiCollection, 'decks' | 'notetypes'> {
  const row = db.prepare<[], { models: string; decks: string }>('select models, decks from col limit 1').get();
  if (row === undefined) throw schemaInvalid('col', 'has no row');
  let models: unknown;
  let decks: unknown;
  try {
    models = JSON.parse(row.models);
    decks = JSON.parse(row.decks);
  } catch {
    throw schemaInvalid('col', 'holds notetypes or decks that are not JSON');
  }
  const notetypes = new Map<number, AnkiNotetype>();
  for (const model of Object.values(isObject(models) ? models : {})) {
    if (!isObject(model)) continue;
    const fields = Array.isArray(model.flds) ? model.flds.filter(isObject).map((f) => text(f.name)) : [];
    notetypes.set(Number(model.id), { name: text(model.name), cloze: model.type === 1, fields });
  }
  const deckMap = new Map<number, { name: string; description: string | null }>();
  for (const deck of Object.values(isObject(decks) ? decks : {})) {
    if (!isObject(deck)) continue;
    deckMap.set(Number(deck.id), { name: text(deck.name), description: typeof deck.desc === 'string' && deck.desc !== '' ? deck.desc : null });
  }
  return { decks: deckMap, notetypes };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function modernDefinitions(db: Db): Pick<AnkiCollection, 'decks' | 'notetypes'> {
  for (const [table, columns] of Object.entries(SCHEMA_18)) checkTable(db, table, columns);
  const fieldsOf = new Map<number, string[]>();
  for (const f of db.prepare<[], { ntid: number; name: string }>('select ntid, name from fields order by ntid, ord').iterate()) {
    const list = fieldsOf.get(Number(f.ntid)) ?? [];
    list.push(String(f.name));
    fieldsOf.set(Number(f.ntid), list);
  }
  const notetypes = new Map<number, AnkiNotetype>();
  for (const t of db.prepare<[], { id: number; name: string; config: Buffer | null }>('select id, name, config from notetypes').iterate()) {
    let cloze = false;
    try {
      cloze = t.config !== null && notetypeIsCloze(t.config);
    } catch {
      throw schemaInvalid('notetypes', 'holds a config that is not a notetype configuration');
    }
    notetypes.set(Number(t.id), { name: String(t.name), cloze, fields: fieldsOf.get(Number(t.id)) ?? [] });
  }
  const decks = new Map<number, { name: string; description: string | null }>();
  // Native deck names separate levels with U+001F; Anki shows them with `::`.
  for (const d of db.prepare<[], { id: number; name: string }>('select id, name from decks').iterate()) {
    decks.set(Number(d.id), { name: String(d.name).replaceAll('\x1f', '::'), description: null });
  }
  return { decks, notetypes };
}

/** Reads the collection at `path`; refuses what is not an Anki 2.1 collection. */
export function readAnkiCollection(path: string): AnkiCollection {
  const db = open(path);
  try {
    for (const [table, columns] of Object.entries(REQUIRED)) checkTable(db, table, columns);
    const definitions = hasTable(db, 'notetypes') ? modernDefinitions(db) : legacyDefinitions(db);
    // The deck of each note's first card; a card in a filtered deck counts in its home deck (odid).
    const deckOf = new Map<number, { ord: number; deckId: number }>();
    for (const c of db.prepare<[], { nid: number; did: number; odid: number; ord: number }>('select nid, did, odid, ord from cards').iterate()) {
      const nid = Number(c.nid);
      const ord = Number(c.ord);
      const seen = deckOf.get(nid);
      if (seen === undefined || ord < seen.ord) deckOf.set(nid, { ord, deckId: Number(c.odid) !== 0 ? Number(c.odid) : Number(c.did) });
      if (deckOf.size > MAX_NOTES) break;
    }
    const notes: AnkiNote[] = [];
    for (const n of db.prepare<[], { id: number; mid: number; flds: string; tags: string }>('select id, mid, flds, tags from notes order by id').iterate()) {
      const home = deckOf.get(Number(n.id));
      if (home === undefined) continue;
      if (notes.length >= MAX_NOTES) {
        throw new AppError('TOO_MANY_CARDS', `The package has more than ${MAX_NOTES} notes; at most ${MAX_NOTES} are read`);
      }
      notes.push({
        id: Number(n.id),
        notetypeId: Number(n.mid),
        fields: String(n.flds).split('\x1f'),
        tags: String(n.tags).split(/\s+/).filter((t) => t !== ''),
        deckId: home.deckId,
      });
    }
    return { ...definitions, notes };
  } catch (error) {
    if (error instanceof AppError) throw error;
    // A malformed page, a type that is not what Anki writes: not a collection we can read.
    throw new AppError('APKG_SCHEMA_INVALID', `The collection cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    db.close();
  }
}
