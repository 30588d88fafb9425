// SQL for decks and their cards. Returns domain shapes; card content stays the stored JSON text
// so a deck can be written out without parsing 250 documents.
import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import { insertRows } from '../../db/dialect-info.ts';
import type { Visibility } from './decks.schemas.ts';
import {
  indexCards, indexDeckVisibility, indexNewCards, indexNewDeckDocument, reindexDeckDocument, unindexCardsOfDeck, type IndexedDeckRef,
} from '../search-index/search-index.repository.ts';

export interface DeckRecord {
  id: string;
  userId: string;
  title: string;
  description: string | null;
  lang: string;
  visibility: Visibility;
  tags: string[];
  thumbnail: string | null;
  cardCount: number;
  createdAt: string;
  updatedAt: string;
}

export type DeckFields = Pick<DeckRecord, 'title' | 'description' | 'lang' | 'visibility' | 'tags' | 'thumbnail'>;

export interface StoredCard {
  id: string;
  position: number;
  /** CardContent as JSON text. */
  data: string;
}

const DECK_COLUMNS = ['id', 'user_id', 'title', 'description', 'lang', 'visibility', 'tags', 'thumbnail', 'card_count', 'created_at', 'updated_at'] as const;

type DeckRow = {
  id: string; user_id: string; title: string; description: string | null; lang: string; visibility: string;
  tags: string; thumbnail: string | null; card_count: number | string; created_at: string; updated_at: string;
};

function toDeck(row: DeckRow): DeckRecord {
  return {
    id: row.id,
    userId: row.user_id,
    title: row.title,
    description: row.description,
    lang: row.lang,
    visibility: row.visibility as Visibility,
    tags: JSON.parse(row.tags) as string[],
    thumbnail: row.thumbnail,
    cardCount: Number(row.card_count),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const selectDeck = preparedQuery((db: Db, deckId: string) => db.selectFrom('decks').select(DECK_COLUMNS).where('id', '=', deckId).where('deleted_at', 'is', null), ['']);

/** The deck, unless it is missing or in the trash (a deck in the trash is missing everywhere). */
export async function findDeck(db: Db, deckId: string): Promise<DeckRecord | null> {
  const row = (await selectDeck(db, deckId)).at(0);
  return row ? toDeck(row) : null;
}

/** A deck as the trash sees it: `deletedAt` set while it is in the trash. */
export type DeckInAnyState = DeckRecord & { deletedAt: string | null };

/** The deck whether or not it is in the trash (the trash's own operations). */
export async function findDeckInAnyState(db: Db, deckId: string): Promise<DeckInAnyState | null> {
  const row = await db.selectFrom('decks').select([...DECK_COLUMNS, 'deleted_at']).where('id', '=', deckId).executeTakeFirst();
  return row ? { ...toDeck(row), deletedAt: row.deleted_at } : null;
}

/** Decks by id, not in the trash, in the order of `ids`. */
export async function findDecks(db: Db, ids: readonly string[]): Promise<DeckRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db.selectFrom('decks').select(DECK_COLUMNS).where('id', 'in', ids).where('deleted_at', 'is', null).execute();
  const byId = new Map(rows.map((r) => [r.id, toDeck(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export async function listDecksOfUser(
  db: Db, userId: string, limit: number, after: { updatedAt: string; id: string } | null, tagKey?: string,
): Promise<DeckRecord[]> {
  let query = db.selectFrom('decks').select(DECK_COLUMNS).where('user_id', '=', userId).where('deleted_at', 'is', null);
  if (tagKey !== undefined) query = query.where('id', 'in', (eb) => eb.selectFrom('deck_tags').select('deck_id').where('tag_key', '=', tagKey));
  if (after) {
    query = query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '<', eb.tuple(after.updatedAt, after.id)));
  }
  const rows = await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toDeck);
}

/** Id, title and card count of every deck of the user, as GET /decks orders them (the due counts). */
export async function listDeckHeadsOfUser(db: Db, userId: string): Promise<{ id: string; title: string; cardCount: number }[]> {
  const rows = await db.selectFrom('decks').select(['id', 'title', 'card_count']).where('user_id', '=', userId).where('deleted_at', 'is', null)
    .orderBy('updated_at', 'desc').orderBy('id', 'desc').execute();
  return rows.map((r) => ({ id: r.id, title: r.title, cardCount: Number(r.card_count) }));
}

export interface PublicDeckFilters { tagKey?: string | undefined; lang?: string | undefined }

/** Every user's public decks not in the trash, newest update first (keyset on updated_at, id). */
export async function listPublicDeckRecords(
  db: Db, limit: number, after: { updatedAt: string; id: string } | null, filters: PublicDeckFilters,
): Promise<DeckRecord[]> {
  let query = db.selectFrom('decks').select(DECK_COLUMNS).where('visibility', '=', 'public').where('deleted_at', 'is', null);
  if (filters.lang !== undefined) query = query.where((eb) => eb(eb.fn('lower', ['lang']), '=', filters.lang?.toLowerCase() ?? ''));
  const { tagKey } = filters;
  if (tagKey !== undefined) query = query.where('id', 'in', (eb) => eb.selectFrom('deck_tags').select('deck_id').where('tag_key', '=', tagKey));
  if (after) query = query.where((eb) => eb(eb.refTuple('updated_at', 'id'), '<', eb.tuple(after.updatedAt, after.id)));
  return (await query.orderBy('updated_at', 'desc').orderBy('id', 'desc').limit(limit).execute()).map(toDeck);
}

// Decks in the trash do not count: deleting a deck frees its place at once.
const countDecks = preparedQuery((db: Db, userId: string) => db.selectFrom('decks').select((eb) => eb.fn.countAll().as('n'))
  .where('user_id', '=', userId).where('deleted_at', 'is', null), ['']);

export async function countDecksOfUser(db: Db, userId: string): Promise<number> {
  const row = (await countDecks(db, userId)).at(0);
  return Number(row?.n ?? 0);
}

// Compiled once: Kysely built and compiled this insert in 100 to 150 µs on every deck create.
const insertDeckRow = preparedQuery((
  db: Db, id: string, userId: string, title: string, description: string | null, lang: string, visibility: string, tags: string,
  thumbnail: string | null, cardCount: number, createdAt: string, updatedAt: string,
) => db.insertInto('decks').values({
  id, user_id: userId, title, description, lang, visibility, tags, thumbnail, card_count: cardCount, created_at: createdAt, updated_at: updatedAt,
}), ['', '', '', '', '', '', '', '', 0, '', '']);

export async function insertDeck(db: Db, deck: DeckRecord): Promise<void> {
  await insertDeckRow(
    db, deck.id, deck.userId, deck.title, deck.description, deck.lang, deck.visibility, JSON.stringify(deck.tags), deck.thumbnail,
    deck.cardCount, deck.createdAt, deck.updatedAt,
  );
  await indexNewDeckDocument(db, deck);
}

/**
 * Writes a deck's fields only if nobody updated it since `expectedUpdatedAt` (compare-and-set):
 * the one concurrency primitive both stores agree on without dialect-specific locking.
 */
export async function updateDeckIfUnchanged(
  db: Db, deckId: string, expectedUpdatedAt: string,
  changes: Partial<DeckFields> & { cardCount?: number; updatedAt: string },
): Promise<boolean> {
  const set: Record<string, unknown> = { updated_at: changes.updatedAt };
  if (changes.title !== undefined) set.title = changes.title;
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.lang !== undefined) set.lang = changes.lang;
  if (changes.visibility !== undefined) set.visibility = changes.visibility;
  if (changes.tags !== undefined) set.tags = JSON.stringify(changes.tags);
  if (changes.thumbnail !== undefined) set.thumbnail = changes.thumbnail;
  if (changes.cardCount !== undefined) set.card_count = changes.cardCount;
  const result = await db.updateTable('decks').set(set).where('id', '=', deckId).where('updated_at', '=', expectedUpdatedAt).executeTakeFirst();
  const updated = result.numUpdatedRows > 0n;
  if (updated && (changes.title !== undefined || changes.description !== undefined || changes.tags !== undefined)) await reindexDeckDocument(db, deckId);
  if (updated && changes.visibility !== undefined) await indexDeckVisibility(db, deckId);
  return updated;
}

export async function listCards(db: Db, deckId: string): Promise<StoredCard[]> {
  return db.selectFrom('cards').select(['id', 'position', 'data']).where('deck_id', '=', deckId).orderBy('position').execute()
    .then((rows) => rows.map((r) => ({ id: r.id, position: Number(r.position), data: r.data })));
}

export async function findCard(db: Db, deckId: string, cardId: string): Promise<StoredCard | null> {
  const row = await db.selectFrom('cards').select(['id', 'position', 'data']).where('id', '=', cardId).where('deck_id', '=', deckId).executeTakeFirst();
  return row ? { id: row.id, position: Number(row.position), data: row.data } : null;
}

export async function insertCards(db: Db, deck: IndexedDeckRef, cards: StoredCard[], hash: (data: string) => string): Promise<void> {
  await insertRows(db, 'cards', cards.map((c) => ({
    id: c.id, deck_id: deck.id, position: c.position, data: c.data, content_hash: hash(c.data),
  })));
  await indexNewCards(db, deck, cards);
}

export async function deleteCardsOfDeck(db: Db, deckId: string): Promise<void> {
  await db.deleteFrom('cards').where('deck_id', '=', deckId).execute();
  await unindexCardsOfDeck(db, deckId);
}

export async function updateCardData(db: Db, deck: IndexedDeckRef, cardId: string, data: string, hash: string): Promise<void> {
  const result = await db.updateTable('cards').set({ data, content_hash: hash }).where('id', '=', cardId).where('deck_id', '=', deck.id).executeTakeFirst();
  if (result.numUpdatedRows > 0n) await indexCards(db, deck, [{ id: cardId, data }]);
}

/** Gives cards new positions (a reorder); the caller keeps the positions of a deck contiguous. */
export async function setCardPositions(db: Db, deckId: string, moves: readonly { id: string; position: number }[]): Promise<void> {
  for (const move of moves) {
    await db.updateTable('cards').set({ position: move.position }).where('id', '=', move.id).where('deck_id', '=', deckId).execute();
  }
}

/** Removes one card and moves every later card of its deck up one, so positions stay contiguous. */
export async function deleteCardAndCloseGap(db: Db, deckId: string, card: { id: string; position: number }): Promise<void> {
  await db.deleteFrom('cards').where('id', '=', card.id).where('deck_id', '=', deckId).execute();
  await db.updateTable('cards').set((eb) => ({ position: eb('position', '-', 1) }))
    .where('deck_id', '=', deckId).where('position', '>', card.position).execute();
}
