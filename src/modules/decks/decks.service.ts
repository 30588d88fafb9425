import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import { renderDeckBody } from './deck-body.ts';
import { normaliseTags, sameDeckFields } from './deck-fields.ts';
import { assertOwner, requireOwnedDeck, writeDeckAndRender } from './deck-write.ts';
import { decodeDeckCursor, encodeDeckCursor } from './deck-cursor.ts';
import { deckDetail, deckSummary } from './decks.mappers.ts';
import { searchDecks, type ListDecksInput } from './deck-search.service.ts';
import { countDecksOfUser, findDeck, findDeckInAnyState, listCards, listDecksOfUser, type DeckFields, type DeckInAnyState, type DeckRecord } from './decks.repository.ts';
import type { Capacity, DeckDetail, DeckList, DeckPatch } from './decks.schemas.ts';

export type { DeckRecord } from './decks.repository.ts';

/** GET /decks: every deck (updatedAt descending) or those with a tag; with `q`, those matching it by relevance. */
export async function listDecks(ctx: ServiceContext, actor: Actor, input: ListDecksInput): Promise<DeckList> {
  if (input.q !== undefined) return searchDecks(ctx, actor, { ...input, q: input.q });
  const after = input.token === undefined ? null : decodeDeckCursor(ctx.secrets.cursorKey, input.token);
  const rows = await listDecksOfUser(ctx.db, actor.userId, input.limit + 1, after, input.tag?.trim().toLowerCase());
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    items: page.map((d) => deckSummary(d, ctx.publicUrl)),
    nextToken: rows.length > input.limit && last ? encodeDeckCursor(ctx.secrets.cursorKey, { updatedAt: last.updatedAt, id: last.id }) : null,
  };
}

export interface DeckReadInput {
  deckId: string;
  /**
   * The deck's version as published to every instance (src/stores/version-board/), read with the
   * call's admission; null when none is known.
   */
  published: string | null;
}

/** A deck read: its JSON bytes and the version they are of. */
export interface DeckBody {
  readonly body: Buffer;
  readonly version: string;
}

/**
 * The deck read as JSON bytes, rendered once per deck version. When the deck's published version
 * is one this instance has rendered, the database is not read at all, and the answer comes without
 * a promise (each await is a turn of the microtask queue on the hottest path).
 */
export function readDeckBody(ctx: ServiceContext, actor: Actor, input: DeckReadInput): DeckBody | Promise<DeckBody> {
  const { deckId, published } = input;
  const held = published === null ? undefined : ctx.deckBodies.get(deckId, published);
  if (held === undefined) return readDeckBodyFromStore(ctx, actor, input);
  assertOwner(held.ownerId, actor, deckId, 'path');
  return held;
}

async function readDeckBodyFromStore(ctx: ServiceContext, actor: Actor, { deckId, published }: DeckReadInput): Promise<DeckBody> {
  const deck = await requireOwnedDeck(ctx.db, actor, deckId, 'path');
  const body = ctx.deckBodies.get(deck.id, deck.updatedAt)?.body ?? renderDeckBody(ctx, deck, await listCards(ctx.db, deck.id));
  if (published !== deck.updatedAt) await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return { body, version: deck.updatedAt };
}

/** readDeckBody's bytes. */
export async function getDeckBody(ctx: ServiceContext, actor: Actor, input: DeckReadInput): Promise<Buffer> {
  return (await readDeckBody(ctx, actor, input)).body;
}

export async function getDeckDetail(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<DeckDetail> {
  const deck = await requireOwnedDeck(ctx.db, actor, input.deckId, 'path');
  return deckDetail(deck, await listCards(ctx.db, deck.id), ctx.publicUrl);
}

export interface PatchDeckInput {
  deckId: string;
  patch: DeckPatch;
  ifMatch?: string | undefined;
}

/** Updates deck metadata; the deck read's bytes come back. Repeating a PATCH changes nothing, not even the version. */
export async function patchDeck(ctx: ServiceContext, actor: Actor, input: PatchDeckInput): Promise<Buffer> {
  const { patch } = input;
  return writeDeckAndRender(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    change: (_trx, deck) => {
      const next: DeckFields = {
        title: patch.title ?? deck.title,
        description: patch.description !== undefined ? patch.description : deck.description,
        lang: patch.lang ?? deck.lang,
        visibility: patch.visibility ?? deck.visibility,
        tags: patch.tags !== undefined ? normaliseTags(patch.tags) : deck.tags,
        thumbnail: patch.thumbnail !== undefined ? patch.thumbnail : deck.thumbnail,
      };
      return { columns: sameDeckFields(next, deck) ? null : next, result: (written) => written };
    },
  });
}

export async function getCapacity(ctx: ServiceContext, actor: Actor): Promise<Capacity> {
  const current = await countDecksOfUser(ctx.db, actor.userId);
  return {
    can_create: ctx.deckLimit === null || current < ctx.deckLimit,
    current_decks: current,
    deck_limit: ctx.deckLimit,
  };
}

/**
 * The actor's deck for the pages that name one (confirm, export, what an import made): null for a
 * missing deck, one in the trash and another person's alike, so a page cannot tell them apart.
 */
export async function findOwnDeck(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<DeckRecord | null> {
  const deck = await findDeck(ctx.db, input.deckId);
  return deck !== null && deck.userId === actor.userId ? deck : null;
}

/** One refusal for a missing deck and one the person may not see or change: a page must not tell them apart. */
export function deckNotFound(): AppError {
  return new AppError('DECK_NOT_FOUND', 'There is no deck at this address, or it is not shared with you.');
}

/**
 * findOwnDeck for a page that changes the deck (checked before a write is admitted): deckNotFound,
 * the 404 page, for a missing deck and another person's alike. The write may start from the deck
 * returned (writeDeck's `ownDeck`) instead of reading it again.
 */
export async function ownDeckOrNotFound(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<DeckRecord> {
  const deck = await findOwnDeck(ctx, actor, input);
  if (deck === null) throw deckNotFound();
  return deck;
}

/** As `findOwnDeck`, a deck in the trash included (the trash page names what it just moved). */
export async function findOwnDeckInAnyState(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<DeckInAnyState | null> {
  const deck = await findDeckInAnyState(ctx.db, input.deckId);
  return deck !== null && deck.userId === actor.userId ? deck : null;
}
