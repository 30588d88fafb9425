// Frozen in time: never edit a migration that has shipped; add a new one.
// SQLite's full-text index gets each user's words as terms of their own (the word with a code of
// its owner before it) and a third column with the plain words of public decks: FTS5 weighed a
// word (BM25's IDF) by reading its postings across every user, so a user's search cost grew with
// everybody's data (docs/performance.md, "Search and the trash"). The FTS5 table is made again
// and filled from the decks and cards that search_documents names, under the same rowids.
// PostgreSQL's index is unchanged.
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop table search_fts`.execute(db);
  await sql`create virtual table search_fts using fts5(owner, body, pub, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
  // Relevance from the words (a user's own or the public ones), never from the owner's token.
  await sql`insert into search_fts (search_fts, rank) values ('rank', 'bm25(0.0, 1.0, 1.0)')`.execute(db);
  let after = 0;
  for (;;) {
    const rows = await sql<{ rowid: number; user_id: string; visibility: string; title: string; description: string | null; tags: string; data: string | null }>`
      select s.rowid, d.user_id, d.visibility, d.title, d.description, d.tags, c.data
      from search_documents s join decks d on d.id = s.deck_id left join cards c on c.id = s.doc_id and s.doc_id <> s.deck_id
      where s.rowid > ${after} order by s.rowid limit 500`.execute(db);
    if (rows.rows.length === 0) return;
    for (const row of rows.rows) {
      const words = row.data === null ? deckWords(row.title, row.description, JSON.parse(row.tags) as string[]) : cardWords(row.data);
      const code = userCode(row.user_id);
      await sql`insert into search_fts (rowid, owner, body, pub) values (${row.rowid}, ${ownerToken(row.user_id)},
        ${words.map((w) => code + w).join(' ')}, ${row.visibility === 'public' ? words.join(' ') : ''})`.execute(db);
    }
    after = rows.rows[rows.rows.length - 1].rowid;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) return;
  await sql`drop table search_fts`.execute(db);
  await sql`create virtual table search_fts using fts5(owner, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')`.execute(db);
  await sql`insert into search_fts (search_fts, rank) values ('rank', 'bm25(0.0, 1.0)')`.execute(db);
  const rows = await sql<{ rowid: number; user_id: string; title: string; description: string | null; tags: string; data: string | null }>`
    select s.rowid, d.user_id, d.title, d.description, d.tags, c.data
    from search_documents s join decks d on d.id = s.deck_id left join cards c on c.id = s.doc_id and s.doc_id <> s.deck_id`.execute(db);
  for (const row of rows.rows) {
    const words = row.data === null ? deckWords(row.title, row.description, JSON.parse(row.tags) as string[]) : cardWords(row.data);
    await sql`insert into search_fts (rowid, owner, body) values (${row.rowid}, ${ownerToken(row.user_id)}, ${words.join(' ')})`.execute(db);
  }
}

// The index's words as of this migration (modules/search-index/search-text.ts), copied so that
// this file stays as it shipped whatever the module becomes.
const WORD = /[\p{L}\p{N}]+/gu;
function words(parts: readonly (string | null | undefined)[]): string[] {
  const all: string[] = [];
  for (const part of parts) {
    if (part) all.push(...(part.slice(0, 20_000).normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(WORD) ?? []));
  }
  return all;
}
function deckWords(title: string, description: string | null, tags: readonly string[]): string[] {
  return words([title, description, ...tags]);
}
function cardWords(data: string): string[] {
  const card = JSON.parse(data) as { front?: string | null; back?: string | null; extras?: { info?: string | null; frontType?: string; backType?: string } };
  const side = (value: string | null | undefined, type: string | undefined) => (value && type === 'html' ? value.replace(/<[^<>]{0,2000}>/g, ' ') : value);
  return words([side(card.front, card.extras?.frontType), side(card.back, card.extras?.backType), card.extras?.info]);
}
function ownerToken(userId: string): string {
  return `u${Buffer.from(userId, 'utf8').toString('hex')}`;
}
function userCode(userId: string): string {
  const n = createHash('sha256').update(userId, 'utf8').digest().readUInt32BE(0) % 36 ** 4;
  return n.toString(36).padStart(4, '0');
}
