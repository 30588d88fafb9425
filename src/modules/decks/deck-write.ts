// The one way to write a deck. Every write to an existing deck (append, PATCH deck, PATCH card,
// update import) goes through writeDeck; a new deck through createDeck. In order, in one
// transaction: ownership (a deck named in the path of another user's call is DECK_FORBIDDEN, one
// named in a query or body DECK_NOT_FOUND), the rest of the target (a missing card is 404 before
// If-Match is weighed, as RFC 9110 has it), If-Match (412 VERSION_MISMATCH), the change, the next
// version, a compare-and-set on the deck row (a loser retries its transaction from the start), the
// rest of the write, the caller's before-commit step (the idempotency record). Then, once committed,
// the new version is published to every instance and, for a write that answers with the deck, its
// body rendered into the cache: bytes of a version that never committed are never kept.
import { nextVersion } from '../../clock.ts';
import { ConcurrentUpdate, inTransaction, type BeforeCommit, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { lockUser } from '../users/users.repository.ts';
import { renderDeckBody } from './deck-body.ts';
import {
  countDecksOfUser, findDeck, insertDeck, listCards, updateDeckIfUnchanged,
  type DeckFields, type DeckRecord,
} from './decks.repository.ts';

/** How the call named the deck: in its path, or as a reference in its query or body. */
export type DeckNaming = 'path' | 'reference';

/** Deck columns a write may change besides its version. */
export type DeckColumns = Partial<DeckFields> & { cardCount?: number };

/** What a write does to the deck it found. */
export interface DeckChange<R> {
  /** The columns that change; null when nothing does, and then the version stays too. */
  readonly columns: DeckColumns | null;
  /** The rest of the write (cards, schedules): runs once the compare-and-set won, with the new deck. */
  readonly apply?: (trx: Db, deck: DeckRecord) => Promise<void>;
  /** The write's result, from the deck as it will be committed. */
  readonly result: (deck: DeckRecord) => R;
}

export interface DeckWrite<R, T = undefined> {
  readonly deckId: string;
  readonly named: DeckNaming;
  /** The If-Match header's value, if any. */
  readonly ifMatch: string | undefined;
  /**
   * The deck as the caller just read it, the actor's (a page's write reads it to refuse another
   * person's deck before the write is admitted): the first attempt starts from it instead of
   * reading it again. The compare-and-set proves it still current (every write and a deletion
   * give the deck a new version); a retry reads it afresh.
   */
  readonly ownDeck?: DeckRecord | undefined;
  /** The rest of the target (a card), read before If-Match is weighed. */
  readonly find?: (trx: Db, deck: DeckRecord) => Promise<T>;
  readonly change: (trx: Db, deck: DeckRecord, found: T) => DeckChange<R> | Promise<DeckChange<R>>;
  readonly beforeCommit?: BeforeCommit<R> | undefined;
}

export function assertOwner(ownerId: string | null, actor: Actor, deckId: string, named: DeckNaming): void {
  if (ownerId === null || (ownerId !== actor.userId && named === 'reference')) {
    throw new AppError('DECK_NOT_FOUND', `Deck ${deckId} was not found`);
  }
  if (ownerId !== actor.userId) throw new AppError('DECK_FORBIDDEN', `Deck ${deckId} belongs to another user`);
}

/** The deck, if the actor owns it (see assertOwner for how others' decks are refused). */
export async function requireOwnedDeck(db: Db, actor: Actor, deckId: string, named: DeckNaming): Promise<DeckRecord> {
  const deck = await findDeck(db, deckId);
  assertOwner(deck?.userId ?? null, actor, deckId, named);
  return deck as DeckRecord;
}

/**
 * Whether an If-Match header holds `version` (RFC 9110): `*`, or a comma-separated list with the
 * version as a strong entity tag (`"<version>"`, the deck's ETag) or bare (quotes are optional). A
 * weak tag (`W/"..."`) never matches: If-Match compares strongly. Linear in the header's length.
 */
export function ifMatchHolds(header: string, version: string): boolean {
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*') return true;
    if (tag.startsWith('W/')) continue;
    const value = tag.length >= 2 && tag.startsWith('"') && tag.endsWith('"') ? tag.slice(1, -1) : tag;
    if (value === version) return true;
  }
  return false;
}

/** If-Match: a stale version is VERSION_MISMATCH. */
function assertVersion(deck: DeckRecord, expected: string | undefined): void {
  if (expected === undefined || ifMatchHolds(expected, deck.updatedAt)) return;
  throw new AppError('VERSION_MISMATCH', `The deck's version is ${deck.updatedAt}, not ${expected.slice(0, 100)}`, { currentVersion: deck.updatedAt });
}

/** The deck the caller read (for the first attempt only), else the deck read in the transaction. */
async function deckOf<R, T>(trx: Db, actor: Actor, write: DeckWrite<R, T>, given: DeckRecord | undefined): Promise<DeckRecord> {
  if (given === undefined || given.id !== write.deckId) return requireOwnedDeck(trx, actor, write.deckId, write.named);
  assertOwner(given.userId, actor, write.deckId, write.named);
  return given;
}

/**
 * The columns whose value differs from the deck's: one written with the value it has is neither
 * written nor indexed again (a PATCH naming the deck's own visibility re-indexed every card).
 */
function changedColumns(deck: DeckRecord, columns: DeckColumns): DeckColumns {
  const changed: Record<string, unknown> = {};
  const current = deck as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(columns)) {
    if (Array.isArray(value) ? JSON.stringify(value) !== JSON.stringify(current[key]) : value !== current[key]) changed[key] = value;
  }
  return changed;
}

async function run<R, T>(ctx: ServiceContext, actor: Actor, write: DeckWrite<R, T>, withCards: boolean) {
  let given = write.ownDeck;
  const done = await inTransaction(ctx.db, async (trx) => {
    const readBefore = given !== undefined && given.id === write.deckId;
    const deck = await deckOf(trx, actor, write, given);
    given = undefined;
    const found = write.find === undefined ? (undefined as T) : await write.find(trx, deck);
    assertVersion(deck, write.ifMatch);
    const change = await write.change(trx, deck, found);
    let next = deck;
    // A write that changes nothing has no compare-and-set to prove the caller's deck still
    // current: read it here, and if it moved on, start again from it (If-Match then weighs the
    // deck as it is, and a stale page gets its 409 rather than a success that saved nothing).
    if (change.columns === null && readBefore && (await findDeck(trx, deck.id))?.updatedAt !== deck.updatedAt) throw new ConcurrentUpdate();
    if (change.columns !== null) {
      const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
      // The compare-and-set comes first: a concurrent writer loses here and retries, so appends
      // keep positions contiguous and a deck never passes its card limit.
      if (!(await updateDeckIfUnchanged(trx, deck.id, deck.updatedAt, { ...changedColumns(deck, change.columns), updatedAt }))) throw new ConcurrentUpdate();
      next = { ...deck, ...change.columns, updatedAt };
      await change.apply?.(trx, next);
    }
    const result = change.result(next);
    await write.beforeCommit?.(trx, result);
    return { deck: next, result, cards: withCards ? await listCards(trx, next.id) : null };
  });
  await ctx.deckVersions.publish(done.deck.id, done.deck.updatedAt);
  return done;
}

/** Writes an existing deck (see the top of this file); resolves once committed and published. */
export async function writeDeck<R, T = undefined>(ctx: ServiceContext, actor: Actor, write: DeckWrite<R, T>): Promise<R> {
  return (await run(ctx, actor, write, false)).result;
}

/** writeDeck for a write that answers with the deck: its read body, rendered once committed. */
export async function writeDeckAndRender<T = undefined>(ctx: ServiceContext, actor: Actor, write: DeckWrite<DeckRecord, T>): Promise<Buffer> {
  const { deck, cards } = await run(ctx, actor, write, true);
  return renderDeckBody(ctx, deck, cards ?? []);
}

export interface NewDeck<R> {
  readonly fields: DeckFields;
  readonly cardCount: number;
  /** Writes the deck's cards, once the deck row is in. */
  readonly apply: (trx: Db, deck: DeckRecord) => Promise<void>;
  readonly result: (deck: DeckRecord) => R;
  readonly beforeCommit?: BeforeCommit<R> | undefined;
}

/**
 * A new deck of the actor's, within the deck limit (403 DECK_LIMIT_REACHED): the user's row lock
 * is taken before counting, so the limit holds under concurrent creates. Published once committed.
 */
export async function createDeck<R>(ctx: ServiceContext, actor: Actor, spec: NewDeck<R>): Promise<R> {
  const { deck, result } = await inTransaction(ctx.db, (trx) => createDeckIn(ctx, trx, actor, spec));
  await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return result;
}

/**
 * createDeck inside the caller's transaction (an Anki package makes several decks, and its media,
 * in one): the caller publishes the deck's version once committed.
 */
export async function createDeckIn<R>(ctx: ServiceContext, trx: Db, actor: Actor, spec: NewDeck<R>): Promise<{ deck: DeckRecord; result: R }> {
  await lockUser(trx, actor.userId);
  if (ctx.deckLimit !== null && (await countDecksOfUser(trx, actor.userId)) >= ctx.deckLimit) {
    throw new AppError('DECK_LIMIT_REACHED', `The deck limit of ${ctx.deckLimit} decks is reached`, { deckLimit: ctx.deckLimit });
  }
  const now = nextVersion(ctx.clock, null);
  const deck: DeckRecord = {
    id: newId('dck'), userId: actor.userId, ...spec.fields, cardCount: spec.cardCount, createdAt: now, updatedAt: now,
  };
  await insertDeck(trx, deck);
  await spec.apply(trx, deck);
  const result = spec.result(deck);
  await spec.beforeCommit?.(trx, result);
  return { deck, result };
}
