// THE place that keeps the full-text index (and the deck_tags table) in step with decks and cards.
// Every write of a deck's title, description or tags, or of a card's text, calls one of these in
// the same transaction: the deck and card repositories do (insertDeck, updateDeckIfUnchanged,
// insertCards, updateCardData, deleteCardsOfDeck), as do the trash (delete, restore, purge). A new
// write of card text or a card removal must call indexCards / unindexCards here.
//
// One document per deck (title, description, tags) and per card (front, back, extras.info), text
// made by search-text.ts. SQLite: search_documents maps each document to a rowid of the
// contentless FTS5 table search_fts(owner, body, pub): the owner's token, the words with the
// owner's code before each, and for a public deck the plain words (so a deck made public or
// private is indexed again); PostgreSQL: search_documents holds the tsvector (`simple`
// configuration, GIN index). Each statement handles a whole batch (a JSON or array parameter).
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { isPostgres } from '../../db/dialect-info.ts';
import { cardDocumentParts, deckDocumentParts, ftsText, indexedText, ownerToken, ownWordsText, userCode, type DocumentParts } from './search-text.ts';

export interface IndexedCard {
  readonly id: string;
  /** The card's stored content (JSON text). */
  readonly data: string;
}

interface Document { id: string; parts: DocumentParts }

/** Whose deck, and whether everyone may find it. */
export interface DeckOwner { readonly userId: string; readonly visibility: string }

/** A deck as the index needs it to add documents: its id and owner (a DeckRecord is one). */
export interface IndexedDeckRef extends DeckOwner { readonly id: string }

interface IndexDialect {
  /** Adds documents of one deck (none of them indexed yet). */
  add(db: Db, deckId: string, docs: readonly Document[], owner: DeckOwner): Promise<void>;
  /** After a deck's visibility was written: what the index holds of it that depends on it. */
  visibilityChanged(db: Db, deckId: string): Promise<void>;
  /** Removes the named documents of one deck. */
  remove(db: Db, deckId: string, docIds: readonly string[]): Promise<void>;
  /** Removes every card document of one deck. */
  removeCardsOf(db: Db, deckId: string): Promise<void>;
  /** Removes every document of one deck. */
  removeDeck(db: Db, deckId: string): Promise<void>;
}

/**
 * Removes FTS5 rows one rowid at a time: `delete ... where rowid in (subquery)` makes SQLite scan
 * the whole virtual table (measured: an import went from 14 to 127 ms), while `rowid = ?` is a
 * lookup.
 */
async function deleteFtsRows(db: Db, rowids: readonly number[]): Promise<void> {
  for (const rowid of rowids) await sql`delete from search_fts where rowid = ${rowid}`.execute(db);
}

const sqliteIndex: IndexDialect = {
  // Rowids are given, not looked up by joining the JSON to the table: SQLite may run such a join
  // with json_each inside, parsing the whole batch again for every row (250 cards: 140 ms).
  // The write's transaction holds SQLite's one writer lock, so max(rowid) + n is free.
  async add(db, deckId, docs, owner) {
    const code = userCode(owner.userId);
    const isPublic = owner.visibility === 'public';
    const json = JSON.stringify(docs.map((d) => ({ id: d.id, body: ownWordsText(d.parts, code), pub: isPublic ? ftsText(d.parts) : '' })));
    const base = Number((await sql<{ n: number | null }>`select max(rowid) as n from search_documents`.execute(db)).rows[0]?.n ?? 0);
    await sql`insert into search_documents (rowid, deck_id, doc_id) select ${base} + j.key + 1, ${deckId}, j.value ->> 'id' from json_each(${json}) j`.execute(db);
    await sql`insert into search_fts (rowid, owner, body, pub)
      select ${base} + j.key + 1, ${ownerToken(owner.userId)}, j.value ->> 'body', j.value ->> 'pub' from json_each(${json}) j`.execute(db);
  },
  // The plain words (`pub`) are there for public decks only: the deck is indexed again.
  async visibilityChanged(db, deckId) {
    await reindexDeck(db, deckId);
  },
  async remove(db, deckId, docIds) {
    const json = JSON.stringify(docIds);
    const rows = await sql<{ rowid: number }>`select rowid from search_documents where deck_id = ${deckId} and doc_id in (select value from json_each(${json}))`.execute(db);
    if (rows.rows.length === 0) return;
    await deleteFtsRows(db, rows.rows.map((r) => r.rowid));
    await sql`delete from search_documents where deck_id = ${deckId} and doc_id in (select value from json_each(${json}))`.execute(db);
  },
  async removeCardsOf(db, deckId) {
    const rows = await sql<{ rowid: number }>`select rowid from search_documents where deck_id = ${deckId} and doc_id <> ${deckId}`.execute(db);
    await deleteFtsRows(db, rows.rows.map((r) => r.rowid));
    await sql`delete from search_documents where deck_id = ${deckId} and doc_id <> ${deckId}`.execute(db);
  },
  async removeDeck(db, deckId) {
    const rows = await sql<{ rowid: number }>`select rowid from search_documents where deck_id = ${deckId}`.execute(db);
    await deleteFtsRows(db, rows.rows.map((r) => r.rowid));
    await sql`delete from search_documents where deck_id = ${deckId}`.execute(db);
  },
};

const postgresIndex: IndexDialect = {
  // Two text arrays, not one JSON document: the driver sends them as they are and PostgreSQL
  // reads them without building a jsonb first.
  async add(db, deckId, docs, owner) {
    await sql`insert into search_documents (deck_id, doc_id, user_id, tsv)
      select ${deckId}, x.id, ${owner.userId}, to_tsvector('simple', x.body)
      from unnest(cast(${docs.map((d) => d.id)} as text[]), cast(${docs.map((d) => indexedText(d.parts))} as text[])) as x(id, body)`.execute(db);
  },
  async remove(db, deckId, docIds) {
    await sql`delete from search_documents where deck_id = ${deckId} and doc_id = any(${docIds})`.execute(db);
  },
  async removeCardsOf(db, deckId) {
    await sql`delete from search_documents where deck_id = ${deckId} and doc_id <> ${deckId}`.execute(db);
  },
  async removeDeck(db, deckId) {
    await sql`delete from search_documents where deck_id = ${deckId}`.execute(db);
  },
  // Public searches read decks.visibility: nothing in the index depends on it.
  async visibilityChanged() {},
};

function dialect(db: Db): IndexDialect {
  return isPostgres(db) ? postgresIndex : sqliteIndex;
}

/** Indexes new cards of a deck (an import, an append, a copy). */
export async function indexNewCards(db: Db, deck: IndexedDeckRef, cards: readonly IndexedCard[]): Promise<void> {
  if (cards.length === 0) return;
  await dialect(db).add(db, deck.id, cards.map((c) => ({ id: c.id, parts: cardDocumentParts(c.data) })), deck);
}

/** Indexes cards whose text changed (a card update, a bulk patch). */
export async function indexCards(db: Db, deck: IndexedDeckRef, cards: readonly IndexedCard[]): Promise<void> {
  if (cards.length === 0) return;
  await dialect(db).remove(db, deck.id, cards.map((c) => c.id));
  await indexNewCards(db, deck, cards);
}

/** Removes cards from the index (a card deleted or moved to another deck). */
export async function unindexCards(db: Db, deckId: string, cardIds: readonly string[]): Promise<void> {
  if (cardIds.length > 0) await dialect(db).remove(db, deckId, cardIds);
}

/** Removes every card of a deck from the index, keeping the deck's own document (an update import). */
export async function unindexCardsOfDeck(db: Db, deckId: string): Promise<void> {
  await dialect(db).removeCardsOf(db, deckId);
}

export interface IndexedDeck {
  readonly id: string;
  readonly title: string;
  readonly description: string | null;
  readonly tags: readonly string[];
}

/** A deck's row as the index reads it (title, description, tags, owner, visibility); null when there is none. */
async function indexedDeckRow(db: Db, deckId: string): Promise<(IndexedDeck & IndexedDeckRef) | null> {
  const row = await db.selectFrom('decks').select(['title', 'description', 'tags', 'user_id', 'visibility']).where('id', '=', deckId).executeTakeFirst();
  return row === undefined ? null : {
    id: deckId, title: row.title, description: row.description, tags: JSON.parse(row.tags) as string[], userId: row.user_id, visibility: row.visibility,
  };
}

/** (Re)indexes a deck's own document and tags from its row: after its title, description or tags change. */
export async function reindexDeckDocument(db: Db, deckId: string): Promise<void> {
  const deck = await indexedDeckRow(db, deckId);
  if (deck === null) return;
  await dialect(db).remove(db, deckId, [deckId]);
  await db.deleteFrom('deck_tags').where('deck_id', '=', deckId).execute();
  await indexNewDeckDocument(db, deck);
}

/** Indexes a deck's own document and its tags, none of them indexed yet (a deck just created). */
export async function indexNewDeckDocument(db: Db, deck: IndexedDeck & DeckOwner): Promise<void> {
  await dialect(db).add(db, deck.id, [{ id: deck.id, parts: deckDocumentParts(deck.title, deck.description, deck.tags) }], deck);
  const keys = [...new Set(deck.tags.map((t) => t.toLowerCase()))];
  if (keys.length > 0) await db.insertInto('deck_tags').values(keys.map((key) => ({ deck_id: deck.id, tag_key: key }))).execute();
}

/** After a deck's visibility was written (a deck made public, or no longer). */
export async function indexDeckVisibility(db: Db, deckId: string): Promise<void> {
  await dialect(db).visibilityChanged(db, deckId);
}

/** Removes a deck and its cards from the index (into the trash, or purged). */
export async function unindexDeck(db: Db, deckId: string): Promise<void> {
  await dialect(db).removeDeck(db, deckId);
  await db.deleteFrom('deck_tags').where('deck_id', '=', deckId).execute();
}

/** Indexes a whole deck again from its rows (out of the trash). */
export async function reindexDeck(db: Db, deckId: string): Promise<void> {
  await unindexDeck(db, deckId);
  const deck = await indexedDeckRow(db, deckId);
  if (deck === null) return;
  await indexNewDeckDocument(db, deck);
  const cards = await db.selectFrom('cards').select(['id', 'data']).where('deck_id', '=', deckId).execute();
  await indexNewCards(db, deck, cards);
}
