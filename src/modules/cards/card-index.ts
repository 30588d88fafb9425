// SEARCH INDEX CALL SITE (issue 21): the one place where the card writes of this module (delete,
// move, bulk patch) tell the full-text index (modules/search-index/search-index.repository.ts) what
// changed, inside the write's transaction. `removed`: the cards leave the index. `changed` needs
// nothing here: updateCardData (decks.repository.ts) indexes the text it writes. A move changes
// no indexed text.
import type { Db } from '../../db/database.ts';
import { unindexCards } from '../search-index/search-index.repository.ts';

export interface CardIndexChange {
  readonly deckId: string;
  /** Cards whose text changed (bulk patch). */
  readonly changed?: readonly string[];
  /** Cards that left the deck (delete). */
  readonly removed?: readonly string[];
}

export async function syncCardIndex(trx: Db, change: CardIndexChange): Promise<void> {
  if (change.removed !== undefined && change.removed.length > 0) await unindexCards(trx, change.deckId, change.removed);
}
