// Deleting a deck, the trash, restoring and purging (DECISIONS "Beyond the spec's operations").
// A deleted deck goes to its owner's trash: from then on it is missing everywhere (findDeck skips
// it, so every read, write, search, learning view and MCP tool says DECK_NOT_FOUND), it frees its
// place under the deck limit, its active sessions end as `abandoned`, and it leaves the search
// index. Restoring brings back the same deck (ids, cards, review history); TRASH_DAYS after the
// delete the periodic purge removes every row of it.
import { nextVersion } from '../../clock.ts';
import { inTransaction, type ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { continuationOf, keysetPage } from '../../keyset-cursor.ts';
import type { Actor } from '../identity/principal.ts';
import { reindexDeck, unindexDeck } from '../search-index/search-index.repository.ts';
import { lockUser } from '../users/users.repository.ts';
import { renderDeckBody } from './deck-body.ts';
import { assertOwner, ifMatchHolds } from './deck-write.ts';
import { deckSummary } from './decks.mappers.ts';
import { countDecksOfUser, findDeckInAnyState, listCards, type DeckInAnyState } from './decks.repository.ts';
import type { TrashList } from './deck-trash.schemas.ts';
import { abandonActiveSessionsOfDeck, deleteDeckRows, listPurgeable, listTrashIds, setDeckDeleted } from './deck-trash.repository.ts';

/** How long a deleted deck stays in the trash. */
export const TRASH_DAYS = 30;
const TRASH_MS = TRASH_DAYS * 86_400_000;

function purgeAt(deletedAt: string): string {
  return new Date(Date.parse(deletedAt) + TRASH_MS).toISOString();
}

/**
 * The deck as the trash's operations see it: another user's deck named in the path is
 * DECK_FORBIDDEN while it exists, and missing (DECK_NOT_FOUND) once in their trash.
 */
async function requireOwnDeckInAnyState(db: ServiceContext['db'], actor: Actor, deckId: string): Promise<DeckInAnyState> {
  const deck = await findDeckInAnyState(db, deckId);
  const visibleOwner = deck === null || (deck.deletedAt !== null && deck.userId !== actor.userId) ? null : deck.userId;
  assertOwner(visibleOwner, actor, deckId, 'path');
  return deck as DeckInAnyState;
}

/** DELETE /decks/{deckId}: into the trash. Deleting a deck already in the trash changes nothing. */
export async function deleteDeck(ctx: ServiceContext, actor: Actor, input: { deckId: string; ifMatch?: string | undefined }): Promise<void> {
  const version = await inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnDeckInAnyState(trx, actor, input.deckId);
    if (deck.deletedAt !== null) return null;
    if (input.ifMatch !== undefined && !ifMatchHolds(input.ifMatch, deck.updatedAt)) {
      throw new AppError('VERSION_MISMATCH', `The deck's version is ${deck.updatedAt}, not ${input.ifMatch.slice(0, 100)}`, { currentVersion: deck.updatedAt });
    }
    const next = nextVersion(ctx.clock, deck.updatedAt);
    await setDeckDeleted(trx, deck.id, ctx.clock.now().toISOString(), next);
    await abandonActiveSessionsOfDeck(trx, deck.id, ctx.clock.now().toISOString());
    await unindexDeck(trx, deck.id);
    return next;
  });
  // Every instance learns the new version, so no instance serves a body it holds of the deck.
  if (version !== null) await ctx.deckVersions.publish(input.deckId, version);
}

/** POST /decks/{deckId}/restore: out of the trash, whole, within the deck limit; the deck read's bytes. */
export async function restoreDeck(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<Buffer> {
  const restored = await inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnDeckInAnyState(trx, actor, input.deckId);
    if (deck.deletedAt === null) return { deck, moved: false };
    await lockUser(trx, actor.userId);
    if (ctx.deckLimit !== null && (await countDecksOfUser(trx, actor.userId)) >= ctx.deckLimit) {
      throw new AppError('DECK_LIMIT_REACHED', `The deck limit of ${ctx.deckLimit} decks is reached`, { deckLimit: ctx.deckLimit });
    }
    const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
    await setDeckDeleted(trx, deck.id, null, updatedAt);
    await reindexDeck(trx, deck.id);
    return { deck: { ...deck, deletedAt: null, updatedAt }, moved: true };
  });
  if (restored.moved) await ctx.deckVersions.publish(restored.deck.id, restored.deck.updatedAt);
  return renderDeckBody(ctx, restored.deck, await listCards(ctx.db, restored.deck.id));
}

/** GET /decks/trash: the user's deleted decks, newest deletion first. */
export async function listTrash(ctx: ServiceContext, actor: Actor, input: { limit: number; token?: string | undefined }): Promise<TrashList> {
  const after = continuationOf(ctx.secrets.cursorKey, input.token, 'trash', ['string', 'string']);
  const rows = await listTrashIds(ctx.db, actor.userId, input.limit + 1, after === null ? null : { deletedAt: after[0] as string, id: after[1] as string });
  const page = keysetPage(ctx.secrets.cursorKey, rows, input.limit, 'trash', (r) => [r.deletedAt, r.id]);
  const decks = new Map((await Promise.all(page.rows.map((r) => findDeckInAnyState(ctx.db, r.id)))).flatMap((d) => (d ? [[d.id, d]] as const : [])));
  return {
    decks: page.rows.flatMap((r) => {
      const deck = decks.get(r.id);
      return deck ? [{ ...deckSummary(deck, ctx.publicUrl), deletedAt: r.deletedAt, purgeAt: purgeAt(r.deletedAt) }] : [];
    }),
    nextToken: page.nextToken,
  };
}

/** The periodic purge: every deck deleted more than TRASH_DAYS ago, removed with all its rows. */
export async function purgeTrash(ctx: ServiceContext): Promise<number> {
  const cutoff = new Date(ctx.clock.now().getTime() - TRASH_MS).toISOString();
  let purged = 0;
  for (;;) {
    const batch = await listPurgeable(ctx.db, cutoff, 100);
    for (const deck of batch) {
      await inTransaction(ctx.db, async (trx) => {
        await unindexDeck(trx, deck.id);
        await deleteDeckRows(trx, deck);
      });
    }
    purged += batch.length;
    if (batch.length < 100) return purged;
  }
}


/** The owner of a deck, in the trash or not (the operator's CLI acts as the deck's owner). */
export async function ownerOfDeck(ctx: ServiceContext, input: { deckId: string }): Promise<Actor> {
  const deck = await findDeckInAnyState(ctx.db, input.deckId);
  if (deck === null) throw new AppError('DECK_NOT_FOUND', `Deck ${input.deckId} was not found`);
  return { userId: deck.userId };
}
