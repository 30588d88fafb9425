import type { Clock } from './clock.ts';
import type { Db } from './db/database.ts';
import type { DeckBodyCache } from './modules/decks/deck-body-cache.ts';
import type { DeckVersionBoard } from './modules/decks/deck-versions.ts';

/** What services need from the outside world; built once at boot (and by the CLI). */
export interface ServiceContext {
  readonly db: Db;
  readonly clock: Clock;
  readonly publicUrl: string;
  readonly deckLimit: number | null;
  /** Signs GET /decks continuation tokens so a tampered one is refused. */
  readonly cursorKey: string;
  /** Rendered deck reads, per deck version (one per app). */
  readonly deckBodies: DeckBodyCache;
  /** Deck versions shared by every instance, so a held body needs no database read. */
  readonly deckVersions: DeckVersionBoard;
}

/** Runs last inside a write's transaction, with its result (the idempotency record goes here). */
export type BeforeCommit<T> = (trx: Db, result: T) => Promise<void>;

/** A compare-and-set lost to a concurrent writer; the transaction is retried from the start. */
export class ConcurrentUpdate extends Error {}

export async function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => work(trx));
    } catch (error) {
      if (!(error instanceof ConcurrentUpdate) || attempt >= 50) throw error;
    }
  }
}
