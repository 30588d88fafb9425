// The least a full-text index in the database's own engine costs an import of 250 cards, outside
// the app (docs/performance.md, "Search and the trash", the import figure's floor). Each variant is
// one transaction per import into its own store: the deck's 250 card rows alone (what an import
// writes without an index: random text ids, one statement per row, as the app does), then the
// same rows plus the cheapest index of their words. The difference of the p50s is what indexing
// the words adds at the least. Each variant has its own store; their transactions take turns (one
// of each, again and again), so a variant that makes the engine busier (WAL, checkpoints) slows
// the others as much as itself, and the differences, if anything, come out too small.
//
//   node bench/search-index-floor.ts                  SQLite (FTS5), in a temporary directory
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node bench/search-index-floor.ts   PostgreSQL (GIN)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { PoolClient } from 'pg';
import { benchDeck } from './deck-fixture.ts';

const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 300);
const WARMUP = 30;

const deck = benchDeck();
const cardData = deck.cards.map((c) => JSON.stringify(c));
const cardText = deck.cards.map((c) => [c.front, c.back, (c.extras as { info?: string } | undefined)?.info].filter(Boolean).join('\n'));
const deckText = cardText.join('\n');
const newId = () => `crd_${randomBytes(15).toString('base64url')}`;

interface Variant {
  name: string;
  /** One import's transaction: the 250 card rows of deck `deck`, and what the variant indexes. */
  run(deckNo: number): Promise<void>;
}

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function sqliteVariants(): Promise<{ variants: Variant[]; close: () => void }> {
  const { default: Database } = await import('better-sqlite3');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-floor-'));
  const dbs: InstanceType<typeof Database>[] = [];
  const open = (name: string, index: string | null) => {
    const db = new Database(path.join(dir, `${name}.db`));
    dbs.push(db);
    // The app's settings (src/db/database.ts).
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('wal_autocheckpoint = 4000');
    db.exec('create table cards (id text primary key, deck_id text not null, position integer not null, data text not null, content_hash text not null)');
    db.exec('create index cards_deck_position_idx on cards (deck_id, position)');
    if (index !== null) db.exec(index);
    return db;
  };
  const cardsOnly = (db: InstanceType<typeof Database>) => {
    const insert = db.prepare('insert into cards (id, deck_id, position, data, content_hash) values (?, ?, ?, ?, ?)');
    return (deckNo: number) => {
      const deckId = `dck_${deckNo}`;
      for (let i = 0; i < cardData.length; i++) insert.run(newId(), deckId, i, cardData[i], 'h');
    };
  };
  const variant = (name: string, index: string | null, extra?: (db: InstanceType<typeof Database>) => (deckNo: number) => void): Variant => {
    const db = open(name, index);
    const cards = cardsOnly(db);
    const more = extra?.(db);
    const txn = db.transaction((deckNo: number) => { cards(deckNo); more?.(deckNo); });
    return { name, run: async (deckNo) => { txn.immediate(deckNo); } };
  };
  let rowid = 0;
  const variants = [
    variant('cards only', null),
    // One document per card, words only (no owner column, no id map): what per-card search needs at the least.
    variant('FTS5, a document per card', "create virtual table f using fts5(body, content='', tokenize='unicode61 remove_diacritics 0')", (db) => {
      const insert = db.prepare('insert into f (rowid, body) values (?, ?)');
      return () => { for (const text of cardText) insert.run(++rowid, text); };
    }),
    // The same without document sizes (columnsize=0: BM25 no longer weighs a document's length).
    variant('FTS5, a document per card, columnsize=0', "create virtual table f using fts5(body, content='', columnsize=0, tokenize='unicode61 remove_diacritics 0')", (db) => {
      const insert = db.prepare('insert into f (rowid, body) values (?, ?)');
      return () => { for (const text of cardText) insert.run(++rowid, text); };
    }),
    // One document per deck, no positions, no sizes: the least FTS5 can keep of these words at all.
    variant('FTS5, a document per deck, detail=none', "create virtual table f using fts5(body, content='', detail=none, columnsize=0, tokenize='unicode61 remove_diacritics 0')", (db) => {
      const insert = db.prepare('insert into f (rowid, body) values (?, ?)');
      return () => { insert.run(++rowid, deckText); };
    }),
  ];
  return { variants, close: () => { for (const db of dbs) db.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
}

async function postgresVariants(url: string): Promise<{ variants: Variant[]; close: () => Promise<void> | void }> {
  const { default: pg } = await import('pg');
  const schema = `floor_${process.pid}`;
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  await pool.query(`create schema ${schema}`);
  const cardsInsert = async (client: PoolClient, table: string, deckNo: number) => {
    await client.query(`insert into ${schema}.${table} (id, deck_id, position, data, content_hash)
      select x.id, $1, x.pos - 1, x.data, 'h' from unnest($2::text[], $3::text[]) with ordinality as x(id, data, pos)`,
    [`dck_${deckNo}`, cardData.map(() => newId()), cardData]);
  };
  const variant = async (name: string, table: string, index: string | null, extra?: (client: PoolClient, deckNo: number) => Promise<void>): Promise<Variant> => {
    await pool.query(`create table ${schema}.${table} (id text primary key, deck_id text not null, position integer not null, data text not null, content_hash text not null)`);
    await pool.query(`create index on ${schema}.${table} (deck_id, position)`);
    if (index !== null) await pool.query(index.replaceAll('$schema', schema));
    return {
      name,
      run: async (deckNo) => {
        const client = await pool.connect();
        try {
          await client.query('begin');
          await cardsInsert(client, table, deckNo);
          await extra?.(client, deckNo);
          await client.query('commit');
        } finally { client.release(); }
      },
    };
  };
  const variants = [
    await variant('cards only', 'c0', null),
    // One tsvector per card with positions (ts_rank needs them), GIN as the app has.
    await variant('tsvector + GIN, a document per card', 'c1', 'create table $schema.d1 (id bigserial primary key, tsv tsvector not null); create index on $schema.d1 using gin (tsv)', async (client) => {
      await client.query(`insert into ${schema}.d1 (tsv) select to_tsvector('simple', t) from unnest($1::text[]) as t`, [cardText]);
    }),
    // One tsvector per card without positions (ts_rank could no longer rank by frequency).
    await variant('tsvector + GIN, a document per card, no positions', 'c3', 'create table $schema.d3 (id bigserial primary key, tsv tsvector not null); create index on $schema.d3 using gin (tsv)', async (client) => {
      await client.query(`insert into ${schema}.d3 (tsv) select array_to_tsvector(string_to_array(t, ' ')) from unnest($1::text[]) as t`,
        [cardText.map((t) => [...new Set(t.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean))].join(' '))]);
    }),
    // One tsvector per deck without positions: the least a GIN index of these words can hold.
    await variant('tsvector + GIN, a document per deck, no positions', 'c2', 'create table $schema.d2 (id bigserial primary key, tsv tsvector not null); create index on $schema.d2 using gin (tsv)', async (client) => {
      // The deck's distinct words, cut in JavaScript: no parser, no positions.
      const words = [...new Set(deckText.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean))];
      await client.query(`insert into ${schema}.d2 (tsv) select array_to_tsvector($1::text[])`, [words]);
    }),
  ];
  return { variants, close: async () => { await pool.query(`drop schema ${schema} cascade`); await pool.end(); } };
}

const url = process.env.DATABASE_URL;
const store: { variants: Variant[]; close: () => Promise<void> | void } = url ? await postgresVariants(url) : await sqliteVariants();
const samples = new Map<string, number[]>(store.variants.map((v) => [v.name, []]));
let deckNo = 0;
for (let i = 0; i < WARMUP; i++) for (const v of store.variants) await v.run(++deckNo);
for (let i = 0; i < IMPORTS; i++) {
  for (const v of store.variants) {
    const start = performance.now();
    await v.run(++deckNo);
    samples.get(v.name)!.push(performance.now() - start);
  }
}
await store.close();
const base = p50(samples.get('cards only')!);
const results: Record<string, { p50Ms: number; addedMs: number }> = {};
for (const [name, s] of samples) results[name] = { p50Ms: Number(p50(s).toFixed(2)), addedMs: Number((p50(s) - base).toFixed(2)) };
process.stdout.write(`${JSON.stringify({ store: url ? 'postgres' : 'sqlite', imports: IMPORTS, results }, null, 2)}\n`);
