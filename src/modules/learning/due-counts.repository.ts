// SQL for the study counts of the home page: per deck, how many cards are due (a schedule whose
// due time has passed), how many were never reviewed, and when the next card comes due. One
// grouped query for a page of decks (50), so the home page costs one round trip, not one per deck.
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';

export interface DeckDueCount {
  deckId: string;
  /** Cards whose FSRS due time has passed. */
  due: number;
  /** Cards the user never reviewed. */
  new: number;
  /** The earliest due time still ahead, or null. */
  nextDueAt: string | null;
}

export async function countDueCards(db: Db, userId: string, deckIds: readonly string[], now: string): Promise<Map<string, DeckDueCount>> {
  const counts = new Map<string, DeckDueCount>();
  if (deckIds.length === 0) return counts;
  const rows = await db.selectFrom('cards')
    .leftJoin('card_schedules', (join) => join.onRef('card_schedules.card_id', '=', 'cards.id').on('card_schedules.user_id', '=', userId))
    .select([
      'cards.deck_id',
      sql<number | string>`sum(case when card_schedules.card_id is null then 1 else 0 end)`.as('new_count'),
      sql<number | string>`sum(case when card_schedules.due <= ${now} then 1 else 0 end)`.as('due_count'),
      sql<string | null>`min(case when card_schedules.due > ${now} then card_schedules.due end)`.as('next_due'),
    ])
    .where('cards.deck_id', 'in', deckIds)
    .groupBy('cards.deck_id')
    .execute();
  for (const row of rows) {
    counts.set(row.deck_id, { deckId: row.deck_id, due: Number(row.due_count), new: Number(row.new_count), nextDueAt: row.next_due });
  }
  return counts;
}
