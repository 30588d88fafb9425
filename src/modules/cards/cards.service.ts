import type { BeforeCommit, ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { requireOwnedDeck, writeDeck } from '../decks/deck-write.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import {
  deleteCardAndCloseGap, findCard, insertCards, listCards, setCardPositions, updateCardData, type DeckRecord, type StoredCard,
} from '../decks/decks.repository.ts';
import {
  MAX_CARDS_PER_DECK, type AppendCardsResult, type BulkCardPatch, type CardDto, type CardInput, type CardPatch, type CardsPatchResult,
  type DeleteCardResult, type MoveCardResult,
} from '../decks/decks.schemas.ts';
import { deleteSchedulesOfCard } from '../reviews/reviews.repository.ts';
import { syncCardIndex } from './card-index.ts';
import { contentHash } from '../decks/card-hash.ts';
import { normaliseCard, patchCard, serialiseContent, type CardContent } from './card-content.ts';

export interface AppendCardsInput {
  deckId: string;
  cards: CardInput[];
  ifMatch?: string | undefined;
  /** The deck as the caller just read it, the actor's (writeDeck's `ownDeck`: not read again). */
  ownDeck?: DeckRecord | undefined;
}

/** Appends cards at the end of a deck; concurrent appends never lose a card nor pass 250. */
export async function appendCards(
  ctx: ServiceContext, actor: Actor, input: AppendCardsInput, beforeCommit?: BeforeCommit<AppendCardsResult>,
): Promise<AppendCardsResult> {
  const contents = input.cards.map((card, i) => serialiseContent(normaliseCard(card, `cards[${i}]`, i).content));
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    ownDeck: input.ownDeck,
    beforeCommit,
    change: (_trx, deck) => {
      if (deck.cardCount + contents.length > MAX_CARDS_PER_DECK) {
        throw new AppError('TOO_MANY_CARDS', `The deck has ${deck.cardCount} cards; appending ${contents.length} would exceed ${MAX_CARDS_PER_DECK}`, {
          field: 'cards', cardCount: deck.cardCount, limit: MAX_CARDS_PER_DECK,
        });
      }
      const added: StoredCard[] = contents.map((data, i) => ({ id: newId('crd'), position: deck.cardCount + i, data }));
      return {
        columns: { cardCount: deck.cardCount + added.length },
        apply: (trx, written) => insertCards(trx, written, added, contentHash),
        result: (written) => ({
          deckId: written.id, addedCount: added.length, cardCount: written.cardCount, version: written.updatedAt, cards: added.map(cardDto),
        }),
      };
    },
  });
}

export interface PatchCardInput {
  deckId: string;
  cardId: string;
  /** The patch, or how to make it from the card as the write reads it (the editor keeps what its form does not show). */
  patch: CardPatch | ((current: CardDto) => CardPatch);
  ifMatch?: string | undefined;
  /** The deck as the caller just read it, the actor's (writeDeck's `ownDeck`: not read again). */
  ownDeck?: DeckRecord | undefined;
}

async function findDeckCard(trx: Parameters<typeof findCard>[0], deckId: string, cardId: string): Promise<StoredCard> {
  const card = await findCard(trx, deckId, cardId);
  if (!card) throw new AppError('CARD_NOT_FOUND', `Card ${cardId} was not found in deck ${deckId}`);
  return card;
}

/** Updates one card; a patch that changes nothing leaves the deck's version as it is. */
export async function patchDeckCard(ctx: ServiceContext, actor: Actor, input: PatchCardInput): Promise<CardDto> {
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    ownDeck: input.ownDeck,
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, _deck, card) => {
      const patch = typeof input.patch === 'function' ? input.patch(cardDto(card)) : input.patch;
      const data = serialiseContent(patchCard(JSON.parse(card.data) as CardContent, patch));
      if (data === card.data) return { columns: null, result: () => cardDto(card) };
      return {
        columns: {},
        apply: (trx, written) => updateCardData(trx, written, card.id, data, contentHash(data)),
        result: () => cardDto({ ...card, data }),
      };
    },
  });
}

export interface MoveCardInput {
  deckId: string;
  cardId: string;
  /** The card's new 0-based position; clamped to the deck. */
  to: number;
  ifMatch?: string | undefined;
  /** The deck as the caller just read it, the actor's (writeDeck's `ownDeck`: not read again). */
  ownDeck?: DeckRecord | undefined;
}

/** Puts `card` at position `to`, shifting only the cards between; positions stay contiguous. */
async function repositionCard(trx: Parameters<typeof listCards>[0], deckId: string, card: { id: string; position: number }, to: number): Promise<void> {
  const ids = (await listCards(trx, deckId)).map((c) => c.id);
  ids.splice(card.position, 1);
  ids.splice(to, 0, card.id);
  const [low, high] = card.position < to ? [card.position, to] : [to, card.position];
  await setCardPositions(trx, deckId, ids.slice(low, high + 1).map((id, i) => ({ id, position: low + i })));
}

/**
 * Moves one card to another position, shifting the cards between; positions stay contiguous.
 * Moving a card to where it is changes nothing, not even the version.
 */
export async function moveCard(ctx: ServiceContext, actor: Actor, input: MoveCardInput): Promise<{ version: string; order: number }> {
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    ownDeck: input.ownDeck,
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, deck, card) => {
      const to = Math.max(0, Math.min(deck.cardCount - 1, Math.trunc(input.to)));
      if (to === card.position) return { columns: null, result: (d) => ({ version: d.updatedAt, order: to }) };
      return {
        columns: {},
        apply: (trx, written) => repositionCard(trx, written.id, card, to),
        result: (d) => ({ version: d.updatedAt, order: to }),
      };
    },
  });
}

/** One card of one of the actor's decks (a deck of another user named in the path: DECK_FORBIDDEN). */
export async function getDeckCard(ctx: ServiceContext, actor: Actor, input: { deckId: string; cardId: string }): Promise<CardDto> {
  const deck = await requireOwnedDeck(ctx.db, actor, input.deckId, 'path');
  return cardDto(await findDeckCard(ctx.db, deck.id, input.cardId));
}

/**
 * Deletes one card: later cards move up one, the card's schedules go (its review history stays in
 * the sessions that answered it), and the deck gets a new version.
 */
export async function deleteDeckCard(
  ctx: ServiceContext, actor: Actor, input: { deckId: string; cardId: string; ifMatch?: string | undefined; ownDeck?: DeckRecord | undefined },
): Promise<DeleteCardResult> {
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    ownDeck: input.ownDeck,
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, deck, card) => ({
      columns: { cardCount: deck.cardCount - 1 },
      apply: async (trx, written) => {
        await deleteCardAndCloseGap(trx, written.id, card);
        await deleteSchedulesOfCard(trx, card.id);
        await syncCardIndex(trx, { deckId: written.id, removed: [card.id] });
      },
      result: (written) => ({ deckId: written.id, cardCount: written.cardCount, version: written.updatedAt }),
    }),
  });
}

/**
 * The API's move: `order` must be a position of the deck (0 to cardCount - 1), else SCHEMA_INVALID
 * naming `order`; orders stay contiguous. A move to where the card is changes nothing.
 */
export async function moveDeckCard(
  ctx: ServiceContext, actor: Actor, input: { deckId: string; cardId: string; order: number; ifMatch?: string | undefined },
): Promise<MoveCardResult> {
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, deck, card) => {
      if (input.order > deck.cardCount - 1) {
        const message = `must be at most ${deck.cardCount - 1}, the last position of the deck`;
        throw new AppError('SCHEMA_INVALID', `order ${message}`, { field: 'order', errors: [{ field: 'order', message }] });
      }
      const to = input.order;
      const moved = (written: { id: string; updatedAt: string }): MoveCardResult => ({
        deckId: written.id, version: written.updatedAt, card: cardDto({ ...card, position: to }),
      });
      if (to === card.position) return { columns: null, result: moved };
      return {
        columns: {},
        apply: (trx, written) => repositionCard(trx, written.id, card, to),
        result: moved,
      };
    },
  });
}

/**
 * Patches many cards of one deck at once: every change or none, one new version (none when nothing
 * changes). An entry naming a card that is not in this deck (another deck's, or none) refuses the
 * whole request with CARD_NOT_FOUND naming the entry; the same card twice is SCHEMA_INVALID. The
 * result holds every card the body named, as it now is, in the body's order.
 */
export async function patchDeckCards(
  ctx: ServiceContext, actor: Actor, input: { deckId: string; cards: BulkCardPatch[]; ifMatch?: string | undefined },
  beforeCommit?: BeforeCommit<CardsPatchResult>,
): Promise<CardsPatchResult> {
  const seen = new Map<string, number>();
  input.cards.forEach((entry, i) => {
    const first = seen.get(entry.id);
    if (first !== undefined) {
      const message = `names the same card as cards[${first}]`;
      throw new AppError('SCHEMA_INVALID', `cards[${i}].id ${message}`, { field: `cards[${i}].id`, errors: [{ field: `cards[${i}].id`, message }] });
    }
    seen.set(entry.id, i);
  });
  return writeDeck(ctx, actor, {
    deckId: input.deckId,
    named: 'path',
    ifMatch: input.ifMatch,
    beforeCommit,
    find: async (trx, deck) => {
      const cards = new Map((await listCards(trx, deck.id)).map((c) => [c.id, c]));
      return input.cards.map((entry, i) => {
        const card = cards.get(entry.id);
        if (card === undefined) {
          throw new AppError('CARD_NOT_FOUND', `cards[${i}].id: card ${entry.id} is not in deck ${deck.id}`, { field: `cards[${i}].id`, cardId: entry.id });
        }
        return card;
      });
    },
    change: (_trx, _deck, found) => {
      const next = input.cards.map((entry, i): StoredCard => {
        const { id: _id, ...patch } = entry;
        const card = found[i];
        return { ...card, data: serialiseContent(patchCard(JSON.parse(card.data) as CardContent, patch, `cards[${i}]`)) };
      });
      const changed = next.filter((card, i) => card.data !== found[i].data);
      const result = (written: { id: string; updatedAt: string }): CardsPatchResult => ({
        deckId: written.id, version: written.updatedAt, cards: next.map(cardDto),
      });
      if (changed.length === 0) return { columns: null, result };
      return {
        columns: {},
        apply: async (trx, written) => {
          for (const card of changed) await updateCardData(trx, written, card.id, card.data, contentHash(card.data));
          await syncCardIndex(trx, { deckId: written.id, changed: changed.map((c) => c.id) });
        },
        result,
      };
    },
  });
}
