// SQL of the trash: a deck deleted (deleted_at set) stays whole for TRASH_DAYS, can be restored, and
// is then purged with every row that belongs to it. The full-text index forgets a deck in the trash
// (modules/search-index/search-index.repository.ts) and learns it again on restore.
import type { Db } from '../../db/database.ts';
import type { DeckRecord } from './decks.repository.ts';

export interface TrashCursor { deletedAt: string; id: string }

/** Puts a deck into the trash (or takes it out: deletedAt null), moving its version. */
export async function setDeckDeleted(db: Db, deckId: string, deletedAt: string | null, version: string): Promise<void> {
  await db.updateTable('decks').set({ deleted_at: deletedAt, updated_at: version }).where('id', '=', deckId).execute();
}

/** Ends the deck's active review sessions: a session of a deck that is gone cannot go on. */
export async function abandonActiveSessionsOfDeck(db: Db, deckId: string, at: string): Promise<void> {
  await db.updateTable('review_sessions').set({ status: 'abandoned', updated_at: at })
    .where('deck_id', '=', deckId).where('status', '=', 'active').execute();
}

/** Ids of the user's decks in the trash, newest deletion first (keyset on deleted_at, id). */
export async function listTrashIds(db: Db, userId: string, limit: number, after: TrashCursor | null): Promise<{ id: string; deletedAt: string }[]> {
  let query = db.selectFrom('decks').select(['id', 'deleted_at']).where('user_id', '=', userId).where('deleted_at', 'is not', null);
  if (after) query = query.where((eb) => eb(eb.refTuple('deleted_at', 'id'), '<', eb.tuple(after.deletedAt, after.id)));
  const rows = await query.orderBy('deleted_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, deletedAt: r.deleted_at as string }));
}

/** Decks deleted at or before `cutoff`, oldest first. */
export async function listPurgeable(db: Db, cutoff: string, limit: number): Promise<{ id: string; userId: string }[]> {
  const rows = await db.selectFrom('decks').select(['id', 'user_id']).where('deleted_at', 'is not', null).where('deleted_at', '<=', cutoff)
    .orderBy('deleted_at').limit(limit).execute();
  return rows.map((r) => ({ id: r.id, userId: r.user_id }));
}

/**
 * Removes every row of a deck: its review answers and sessions, its cards' schedules (reviews are
 * the owner's only: a session needs the deck's owner), its cards, tags, index documents and the
 * deck itself. Media the deck referred to is the media purge's (modules/media).
 */
export async function deleteDeckRows(db: Db, deck: Pick<DeckRecord, 'id' | 'userId'>): Promise<void> {
  const sessions = db.selectFrom('review_sessions').select('id').where('deck_id', '=', deck.id);
  await db.deleteFrom('review_answers').where('session_id', 'in', sessions).execute();
  await db.deleteFrom('review_sessions').where('deck_id', '=', deck.id).execute();
  await db.deleteFrom('card_schedules').where('user_id', '=', deck.userId)
    .where('card_id', 'in', db.selectFrom('cards').select('id').where('deck_id', '=', deck.id)).execute();
  await db.deleteFrom('cards').where('deck_id', '=', deck.id).execute();
  await db.deleteFrom('decks').where('id', '=', deck.id).execute();
}
