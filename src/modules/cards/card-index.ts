// SEARCH INDEX CALL SITE (issue 21): the one place where the card writes of this module (delete,
// move, bulk patch) tell the full-text index what changed, inside the write's transaction. The
// index helper (modules/search, built on branch `decks`) was not on main when these writes were
// written: once it is, this calls it, and nothing else in the card writes changes.
import type { Db } from '../../db/database.ts';

export interface CardIndexChange {
  readonly deckId: string;
  /** Cards whose text changed (bulk patch). */
  readonly changed?: readonly string[];
  /** Cards that left the deck (delete). */
  readonly removed?: readonly string[];
}

export async function syncCardIndex(_trx: Db, _change: CardIndexChange): Promise<void> {
  // Positions (move) are not indexed text; a move passes no card.
}
