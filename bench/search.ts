// Search, trash and import figures with the full-text index (docs/performance.md, "Search and
// the trash"), in one process through app.inject (the server's handling without the network).
// Seeds in bulk with SQL straight into the store: 100,000 decks of 10 cards for 1,000 users.
//
//   node bench/search.ts                       SQLite in a temporary directory
//   DATABASE_URL=postgres://...?options=-c%20search_path%3Dbench_search node bench/search.ts
//   BENCH_SRC=/path/to/other/checkout/src BENCH_ONLY=import node bench/search.ts   (import before the index)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { benchDeck } from './deck-fixture.ts';

const SRC = process.env.BENCH_SRC ?? new URL('../src', import.meta.url).pathname;
const ONLY = new Set((process.env.BENCH_ONLY ?? 'import,search,trash').split(','));
const { buildApp } = await import(`${SRC}/app.ts`) as typeof import('../src/app.ts');
const { loadConfig } = await import(`${SRC}/config.ts`) as typeof import('../src/config.ts');
const { isPostgres } = await import(`${SRC}/db/dialect-info.ts`) as typeof import('../src/db/dialect-info.ts');
// What SQLite's index holds for a document, as the checkout under test writes it.
// (A checkout from before the index has no such module: its import is measured alone.)
const searchText = await import(`${SRC}/modules/search-index/search-text.ts`).catch(() => ({})) as Partial<typeof import('../src/modules/search-index/search-text.ts')>;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-search-'));
let offsetMs = 0;
const results: Record<string, string> = {};
const clock = { now: () => new Date(Date.now() + offsetMs) };
const config = loadConfig({
  DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000000', RATE_LIMIT_PER_DAY: '1000000000', DECK_LIMIT: 'none',
  ...(process.env.DATABASE_URL ? { DATABASE_URL: process.env.DATABASE_URL } : {}),
});
const app = await buildApp(config, { logger: false, clock });
await app.ready();
const db = app.services.db;
const pg = isPostgres(db);

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function note(name: string, value: string): void {
  results[name] = value;
  process.stderr.write(`${name}: ${value}\n`);
}

async function timed(n: number, warmup: number, call: (i: number) => Promise<void>): Promise<number> {
  for (let i = 0; i < warmup; i++) await call(i);
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    await call(i + warmup);
    samples.push(performance.now() - start);
  }
  return p50(samples);
}

async function request(token: string, method: string, url: string, payload?: unknown): Promise<{ statusCode: number; body: string }> {
  const res = await app.inject({ method: method as 'GET', url: `/api/v1${url}`, headers: { authorization: `Bearer ${token}` }, ...(payload === undefined ? {} : { payload: payload as object }) });
  if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  return res;
}

const email = `bench-${Date.now()}@example.com`;
const me = await app.admin.addUser(email);
const { token } = await app.admin.createToken({ email, name: 'bench', scopes: ['decks:read', 'decks:write', 'decks:delete', 'reviews:read', 'reviews:write'] });
const body = benchDeck();

if (ONLY.has('import')) {
  // A user of its own: the searching user keeps exactly its 100 decks.
  const importer = `bench-import-${Date.now()}@example.com`;
  await app.admin.addUser(importer);
  const { token: importToken } = await app.admin.createToken({ email: importer, name: 'bench', scopes: ['decks:write'] });
  note('import p50 ms (250 cards, JSON)', (await timed(60, 15, async () => { await request(importToken, 'POST', '/decks/import', body); })).toFixed(2));
}

// Bench words: w0 ... w1999; each card side holds 6 of them.
const word = (n: number) => `w${n % 2000}`;
let seed = 7;
const rand = () => { seed = (seed * 1103515245 + 12345) % 2147483648; return seed / 2147483648; };
const words = (k: number) => Array.from({ length: k }, () => word(Math.floor(rand() * 2000))).join(' ');
let nextId = 0;
const id = (prefix: string) => `${prefix}_bench${(nextId++).toString(36).padStart(12, '0')}`;

/** Decks of 10 cards for these users, inserted with a few statements per 500 decks, index included. */
async function seedDecks(userIds: string[], decksPerUser: number): Promise<void> {
  const now = new Date().toISOString();
  const all: { id: string; u: string; t: string }[] = [];
  for (const u of userIds) for (let i = 0; i < decksPerUser; i++) all.push({ id: id('dck'), u, t: `Deck ${words(3)}` });
  for (let b = 0; b < all.length; b += 500) {
    const decks = all.slice(b, b + 500);
    const cards: { id: string; d: string; p: number; data: string }[] = [];
    const docs: { d: string; id: string; u: string; o: string; b: string }[] = [];
    for (const deck of decks) {
      const owner = `u${Buffer.from(deck.u).toString('hex')}`;
      const body = (text: string) => (searchText.ownWordsText && searchText.userCode ? searchText.ownWordsText([text], searchText.userCode(deck.u)) : text.toLowerCase());
      docs.push({ d: deck.id, id: deck.id, u: deck.u, o: owner, b: pg ? deck.t.toLowerCase() : body(deck.t) });
      for (let p = 0; p < 10; p++) {
        const front = words(6);
        const back = words(6);
        const card = { id: id('crd'), d: deck.id, p, data: JSON.stringify({ front, back, oneSided: false, extras: { frontType: 'markdown', backType: 'markdown' } }) };
        cards.push(card);
        docs.push({ d: deck.id, id: card.id, u: deck.u, o: owner, b: pg ? `${front} ${back}` : body(`${front} ${back}`) });
      }
    }
    await db.transaction().execute(async (trx) => {
      if (pg) {
        await sql`insert into decks (id, user_id, title, description, lang, visibility, tags, thumbnail, card_count, created_at, updated_at)
          select x.id, x.u, x.t, null, 'en', 'private', '[]', null, 10, ${now}, ${now} from jsonb_to_recordset(cast(${JSON.stringify(decks)} as jsonb)) as x(id text, u text, t text)`.execute(trx);
        await sql`insert into cards (id, deck_id, position, data, content_hash)
          select x.id, x.d, x.p, x.data, 'bench' from jsonb_to_recordset(cast(${JSON.stringify(cards)} as jsonb)) as x(id text, d text, p int, data text)`.execute(trx);
        await sql`insert into search_documents (deck_id, doc_id, user_id, tsv)
          select x.d, x.id, x.u, to_tsvector('simple', x.b) from jsonb_to_recordset(cast(${JSON.stringify(docs)} as jsonb)) as x(d text, id text, u text, b text)`.execute(trx);
      } else {
        await sql`insert into decks (id, user_id, title, description, lang, visibility, tags, thumbnail, card_count, created_at, updated_at)
          select j.value ->> 'id', j.value ->> 'u', j.value ->> 't', null, 'en', 'private', '[]', null, 10, ${now}, ${now} from json_each(${JSON.stringify(decks)}) j`.execute(trx);
        await sql`insert into cards (id, deck_id, position, data, content_hash)
          select j.value ->> 'id', j.value ->> 'd', j.value ->> 'p', j.value ->> 'data', 'bench' from json_each(${JSON.stringify(cards)}) j`.execute(trx);
        const docsJson = JSON.stringify(docs);
        await sql`insert into search_documents (deck_id, doc_id) select j.value ->> 'd', j.value ->> 'id' from json_each(${docsJson}) j`.execute(trx);
        await sql`insert into search_fts (rowid, owner, body) select s.rowid, j.value ->> 'o', j.value ->> 'b'
          from json_each(${docsJson}) j join search_documents s on s.deck_id = j.value ->> 'd' and s.doc_id = j.value ->> 'id'`.execute(trx);
      }
    });
  }
}

async function searchFigures(label: string): Promise<void> {
  // Words of the measured user's own cards: each query finds something.
  const rows = await sql<{ data: string }>`select c.data from cards c join decks d on d.id = c.deck_id where d.user_id = ${me.id} limit 50`.execute(db);
  const queries = rows.rows.map((r) => (JSON.parse(r.data) as { front: string }).front.split(' ')[0]);
  // Each query finds something (a bench whose seeding the index cannot read would time empty searches).
  if (JSON.parse((await request(token, 'GET', `/search?q=${queries[0]}`)).body).results.length === 0) throw new Error(`no result for ${queries[0]}`);
  if (JSON.parse((await request(token, 'GET', `/decks?q=${queries[0]}`)).body).items.length === 0) throw new Error(`no deck for ${queries[0]}`);
  note(`GET /decks?q= p50 ms, ${label}`, (await timed(300, 50, async (i) => { await request(token, 'GET', `/decks?q=${queries[i % queries.length]}`); })).toFixed(2));
  note(`GET /search?q= p50 ms, ${label}`, (await timed(300, 50, async (i) => { await request(token, 'GET', `/search?q=${queries[i % queries.length]}`); })).toFixed(2));
  note(`GET /search?q= (two words) p50 ms, ${label}`, (await timed(300, 50, async (i) => { await request(token, 'GET', `/search?q=${queries[i % queries.length]}%20${queries[(i + 1) % queries.length]}`); })).toFixed(2));
}

if (ONLY.has('search')) {
  await seedDecks([me.id], 100);
  // Statistics for the planner at both sizes (autovacuum would gather them in a while).
  if (pg) await sql`analyze`.execute(db);
  await searchFigures('100 decks');
  const started = performance.now();
  const users: { id: string; email: string }[] = Array.from({ length: 999 }, (_, i) => ({ id: id('usr'), email: `bench-other-${i}-${Date.now()}@example.com` }));
  const now = new Date().toISOString();
  for (let b = 0; b < users.length; b += 500) {
    await db.insertInto('users').values(users.slice(b, b + 500).map((u) => ({ id: u.id, email: u.email, created_at: now, updated_at: now, password_hash: null }))).execute();
  }
  await seedDecks(users.map((u) => u.id), 100);
  if (pg) await sql`analyze`.execute(db);
  note('seeding 99,900 decks (999,000 cards) s', ((performance.now() - started) / 1000).toFixed(1));
  await searchFigures('100,000 decks');
}

if (ONLY.has('trash')) {
  const deckId = JSON.parse((await request(token, 'POST', '/decks/import', body)).body).deckId as string;
  const del: number[] = [];
  const res: number[] = [];
  for (let i = 0; i < 40; i++) {
    let t = performance.now();
    await request(token, 'DELETE', `/decks/${deckId}`);
    del.push(performance.now() - t);
    t = performance.now();
    await request(token, 'POST', `/decks/${deckId}/restore`);
    res.push(performance.now() - t);
  }
  note('DELETE /decks/{id} p50 ms (250 cards)', p50(del.slice(5)).toFixed(2));
  note('POST /decks/{id}/restore p50 ms (250 cards)', p50(res.slice(5)).toFixed(2));
  const { purgeTrash } = await import(`${SRC}/modules/decks/deck-trash.service.ts`) as typeof import('../src/modules/decks/deck-trash.service.ts');
  const purges: number[] = [];
  for (let i = 0; i < 25; i++) {
    const doomed = JSON.parse((await request(token, 'POST', '/decks/import', body)).body).deckId as string;
    await request(token, 'DELETE', `/decks/${doomed}`);
    offsetMs += 31 * 86_400_000;
    const t = performance.now();
    if ((await purgeTrash(app.services)) !== 1) throw new Error('purge did not purge one deck');
    purges.push(performance.now() - t);
    offsetMs = 0;
  }
  note('purge p50 ms (one 250-card deck)', p50(purges.slice(5)).toFixed(2));
}

await app.close();
fs.rmSync(dataDir, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify({ store: pg ? 'postgresql' : 'sqlite', src: SRC, results }, null, 2)}\n`);
