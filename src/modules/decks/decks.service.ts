import { nextVersion } from '../../clock.ts';
import { ConcurrentUpdate, inTransaction, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { Principal } from '../tokens/tokens.service.ts';
import { decodeDeckCursor, encodeDeckCursor } from './deck-cursor.ts';
import { normaliseTags, sameDeckFields } from './deck-fields.ts';
import { deckDetail, deckDetailText, deckHeadJson, deckSummary } from './decks.mappers.ts';
import {
  countDecksOfUser, findDeck, listCards, listDecksOfUser, updateDeckIfUnchanged,
  type DeckFields, type DeckRecord, type StoredCard,
} from './decks.repository.ts';
import type { Capacity, DeckDetail, DeckList, DeckPatch } from './decks.schemas.ts';

/**
 * The deck, if the principal owns it. A deck named in the path of another user's request is
 * DECK_FORBIDDEN; one named in a query or body (`reference`) is DECK_NOT_FOUND, as if absent.
 */
export async function requireOwnedDeck(db: Db, principal: Principal, deckId: string, named: 'path' | 'reference'): Promise<DeckRecord> {
  return assertOwned(await findDeck(db, deckId), principal, deckId, named);
}

function assertOwned(deck: DeckRecord | null, principal: Principal, deckId: string, named: 'path' | 'reference'): DeckRecord {
  if (deck === null || (deck.userId !== principal.userId && named === 'reference')) {
    throw new AppError('DECK_NOT_FOUND', `Deck ${deckId} was not found`);
  }
  if (deck.userId !== principal.userId) throw new AppError('DECK_FORBIDDEN', `Deck ${deckId} belongs to another user`);
  return deck;
}

/** If-Match: a stale version is VERSION_MISMATCH. Quotes (ETag style) are accepted. */
export function assertVersion(deck: DeckRecord, expected: string | undefined): void {
  if (expected === undefined) return;
  const value = expected.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
  if (value === '*') return;
  if (value !== deck.updatedAt) {
    throw new AppError('VERSION_MISMATCH', `The deck's version is ${deck.updatedAt}, not ${value}`, { currentVersion: deck.updatedAt });
  }
}

export async function listDecks(ctx: ServiceContext, principal: Principal, limit: number, token: string | undefined): Promise<DeckList> {
  const after = token === undefined ? null : decodeDeckCursor(ctx.cursorKey, token);
  const rows = await listDecksOfUser(ctx.db, principal.userId, limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((d) => deckSummary(d, ctx.publicUrl)),
    nextToken: rows.length > limit && last ? encodeDeckCursor(ctx.cursorKey, { updatedAt: last.updatedAt, id: last.id }) : null,
  };
}

/** Renders a deck read to bytes and keeps them for this version (see deck-body-cache.ts). */
function renderDeck(ctx: ServiceContext, deck: DeckRecord, cards: StoredCard[]): Buffer {
  const body = Buffer.from(deckDetailText(deckHeadJson(deck, ctx.publicUrl), cards));
  ctx.deckBodies.set(deck, body);
  return body;
}

/**
 * The deck read as JSON bytes, rendered once per deck version. When the deck's published version
 * (deck-versions.ts, read with the call's rate-limit check) is one this instance has rendered, the
 * database is not read at all.
 */
export async function getDeckBody(ctx: ServiceContext, principal: Principal, deckId: string, published: string | null): Promise<Buffer> {
  const held = published === null ? undefined : ctx.deckBodies.get(deckId, published);
  if (held !== undefined) {
    assertOwned(held.deck, principal, deckId, 'path');
    return held.body;
  }
  const deck = await requireOwnedDeck(ctx.db, principal, deckId, 'path');
  const body = ctx.deckBodies.get(deck.id, deck.updatedAt)?.body ?? renderDeck(ctx, deck, await listCards(ctx.db, deck.id));
  if (published !== deck.updatedAt) await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return body;
}

export async function getDeckDetail(ctx: ServiceContext, principal: Principal, deckId: string): Promise<DeckDetail> {
  const deck = await requireOwnedDeck(ctx.db, principal, deckId, 'path');
  return deckDetail(deck, await listCards(ctx.db, deck.id), ctx.publicUrl);
}

export async function patchDeck(ctx: ServiceContext, principal: Principal, deckId: string, patch: DeckPatch, ifMatch?: string): Promise<Buffer> {
  const { deck, cards } = await inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, principal, deckId, 'path');
    assertVersion(deck, ifMatch);
    const next: DeckFields = {
      title: patch.title ?? deck.title,
      description: patch.description !== undefined ? patch.description : deck.description,
      lang: patch.lang ?? deck.lang,
      visibility: patch.visibility ?? deck.visibility,
      tags: patch.tags !== undefined ? normaliseTags(patch.tags) : deck.tags,
      thumbnail: patch.thumbnail !== undefined ? patch.thumbnail : deck.thumbnail,
    };
    let current = deck;
    // Repeating a PATCH changes nothing, not even the version.
    if (!sameDeckFields(next, deck)) {
      const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
      if (!(await updateDeckIfUnchanged(trx, deck.id, deck.updatedAt, { ...next, updatedAt }))) throw new ConcurrentUpdate();
      current = { ...deck, ...next, updatedAt };
    }
    return { deck: current, cards: await listCards(trx, deck.id) };
  });
  // Rendered (and cached) only once committed: the bytes of a version that never was must not stay.
  await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return renderDeck(ctx, deck, cards);
}

export async function getCapacity(ctx: ServiceContext, principal: Principal): Promise<Capacity> {
  const current = await countDecksOfUser(ctx.db, principal.userId);
  return {
    can_create: ctx.deckLimit === null || current < ctx.deckLimit,
    current_decks: current,
    deck_limit: ctx.deckLimit,
  };
}
