// Full-text queries over the index that search-index.repository.ts keeps (see search-text.ts for
// what a word is). Every query is a list of words, all of which one document must hold; no part of
// the user's text is ever query syntax (each word is a quoted FTS5 string on SQLite, and goes
// through plainto_tsquery on PostgreSQL). Results come by relevance: BM25 on SQLite (its word
// weights from the user's own documents, or the public decks'), ts_rank on PostgreSQL, then by
// id, so pages are stable.
import { sql, type RawBuilder } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isPostgres } from '../../db/dialect-info.ts';
import { ownerToken, userCode } from '../search-index/search-text.ts';

/** Whose decks: one user's, or every user's public ones. */
export type SearchScope = { readonly userId: string } | 'public';

export interface DeckFilters {
  /** A tag in lower case (deck_tags.tag_key). */
  readonly tagKey?: string | undefined;
  /** A language code, compared case-insensitively. */
  readonly lang?: string | undefined;
}

export interface CardHit {
  deckId: string;
  deckTitle: string;
  cardId: string;
  position: number;
  /** The card's stored content (JSON text). */
  data: string;
}

interface SearchDialect {
  deckIds(db: Db, scope: SearchScope, words: readonly string[], filters: DeckFilters, limit: number, offset: number): Promise<string[]>;
  cardHits(db: Db, userId: string, words: readonly string[], limit: number, offset: number): Promise<CardHit[]>;
}

function deckConditions(filters: DeckFilters, scope: SearchScope, deckId: RawBuilder<unknown>): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (scope === 'public') {
    parts.push(sql`${deckId} in (select id from decks where visibility = 'public' and deleted_at is null${filters.lang === undefined ? sql`` : sql` and lower(lang) = ${filters.lang.toLowerCase()}`})`);
  }
  if (filters.tagKey !== undefined) parts.push(sql`${deckId} in (select deck_id from deck_tags where tag_key = ${filters.tagKey})`);
  return parts.length === 0 ? sql`` : sql` and ${sql.join(parts, sql` and `)}`;
}

/**
 * An FTS5 query of the words: every word a quoted string, never syntax. A user's own search asks
 * for the words with the user's code before each, in `body`, and for the user's token in `owner`
 * (two users may share a code); a public search asks for the plain words, which only public
 * decks' documents hold (`pub`).
 */
function ftsQuery(scope: SearchScope, words: readonly string[]): string {
  const quoted = (w: string) => `"${w.replaceAll('"', '""')}"`;
  if (scope === 'public') return `pub : (${words.map(quoted).join(' AND ')})`;
  const code = userCode(scope.userId);
  return `owner : ${quoted(ownerToken(scope.userId))} AND body : (${words.map((w) => quoted(code + w)).join(' AND ')})`;
}

const sqliteSearch: SearchDialect = {
  async deckIds(db, scope, words, filters, limit, offset) {
    const rows = await sql<{ id: string }>`select s.deck_id as id from search_fts join search_documents s on s.rowid = search_fts.rowid
      where search_fts match ${ftsQuery(scope, words)}${deckConditions(filters, scope, sql.ref('s.deck_id'))}
      group by s.deck_id order by min(search_fts.rank), s.deck_id limit ${limit} offset ${offset}`.execute(db);
    return rows.rows.map((r) => r.id);
  },
  async cardHits(db, userId, words, limit, offset) {
    const rows = await sql<{ deck_id: string; title: string; card_id: string; position: number; data: string }>`
      select s.deck_id, d.title, c.id as card_id, c.position, c.data
      from search_fts join search_documents s on s.rowid = search_fts.rowid
      join cards c on c.id = s.doc_id join decks d on d.id = s.deck_id
      where search_fts match ${ftsQuery({ userId }, words)} and d.deleted_at is null
      order by search_fts.rank, c.id limit ${limit} offset ${offset}`.execute(db);
    return rows.rows.map((r) => ({ deckId: r.deck_id, deckTitle: r.title, cardId: r.card_id, position: Number(r.position), data: r.data }));
  },
};

const postgresSearch: SearchDialect = {
  async deckIds(db, scope, words, filters, limit, offset) {
    const query = sql`plainto_tsquery('simple', ${words.join(' ')})`;
    const owner = scope === 'public' ? sql`` : sql`s.user_id = ${scope.userId} and `;
    const rows = await sql<{ id: string }>`select s.deck_id as id from search_documents s
      where ${owner}s.tsv @@ ${query}${deckConditions(filters, scope, sql.ref('s.deck_id'))}
      group by s.deck_id order by max(ts_rank(s.tsv, ${query})) desc, s.deck_id limit ${limit} offset ${offset}`.execute(db);
    return rows.rows.map((r) => r.id);
  },
  async cardHits(db, userId, words, limit, offset) {
    const query = sql`plainto_tsquery('simple', ${words.join(' ')})`;
    const rows = await sql<{ deck_id: string; title: string; card_id: string; position: number; data: string }>`
      select s.deck_id, d.title, c.id as card_id, c.position, c.data
      from search_documents s join cards c on c.id = s.doc_id join decks d on d.id = s.deck_id
      where s.user_id = ${userId} and s.tsv @@ ${query} and d.deleted_at is null
      order by ts_rank(s.tsv, ${query}) desc, c.id limit ${limit} offset ${offset}`.execute(db);
    return rows.rows.map((r) => ({ deckId: r.deck_id, deckTitle: r.title, cardId: r.card_id, position: Number(r.position), data: r.data }));
  },
};

function dialect(db: Db): SearchDialect {
  return isPostgres(db) ? postgresSearch : sqliteSearch;
}

/** Ids of decks matching every word (in the deck's own text or in one card's), by relevance. */
export async function searchDeckIds(
  db: Db, scope: SearchScope, words: readonly string[], filters: DeckFilters, limit: number, offset: number,
): Promise<string[]> {
  return words.length === 0 ? [] : dialect(db).deckIds(db, scope, words, filters, limit, offset);
}

/** The user's cards holding every word, by relevance. */
export async function searchCardHits(db: Db, userId: string, words: readonly string[], limit: number, offset: number): Promise<CardHit[]> {
  return words.length === 0 ? [] : dialect(db).cardHits(db, userId, words, limit, offset);
}

/** One of the user's cards by id alone, with its deck (not in the trash); null when there is none. */
export async function findOwnCard(db: Db, userId: string, cardId: string): Promise<CardHit | null> {
  const row = await db.selectFrom('cards').innerJoin('decks', 'decks.id', 'cards.deck_id')
    .select(['cards.deck_id', 'decks.title', 'cards.id', 'cards.position', 'cards.data'])
    .where('cards.id', '=', cardId).where('decks.user_id', '=', userId).where('decks.deleted_at', 'is', null).executeTakeFirst();
  return row ? { deckId: row.deck_id, deckTitle: row.title, cardId: row.id, position: Number(row.position), data: row.data } : null;
}
