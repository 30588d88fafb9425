// SEARCH INDEX CALL SITE (issue 21): the one place where the card writes of this module (delete,
// move, bulk patch) tell the full-text index what changed, inside the write's transaction. The
// index helper (modules/search/search-index.repository.ts, built on branch `decks`) was not on
// main when these writes were written. Once it is: `removed` -> `unindexCards(trx, deckId, removed)`;
// `changed` needs nothing here if, as on that branch, `updateCardData` indexes the text it writes
// (else `indexCards`); a move changes no indexed text.
import type { Db } from '../../db/database.ts';

export interface CardIndexChange {
  readonly deckId: string;
  /** Cards whose text changed (bulk patch). */
  readonly changed?: readonly string[];
  /** Cards that left the deck (delete). */
  readonly removed?: readonly string[];
}

export async function syncCardIndex(_trx: Db, _change: CardIndexChange): Promise<void> {
  // Nothing until the index exists on main (see above).
}
