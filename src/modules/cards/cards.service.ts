import type { BeforeCommit, ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { writeDeck } from '../decks/deck-write.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import { findCard, insertCards, listCards, setCardPositions, updateCardData, type StoredCard } from '../decks/decks.repository.ts';
import { MAX_CARDS_PER_DECK, type AppendCardsResult, type CardDto, type CardInput, type CardPatch } from '../decks/decks.schemas.ts';
import { contentHash } from './card-hash.ts';
import { normaliseCard, patchCard, serialiseContent, type CardContent } from './card-content.ts';

export interface AppendCardsInput {
  deckId: string;
  cards: CardInput[];
  ifMatch?: string | undefined;
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
        apply: (trx, written) => insertCards(trx, written.id, added, contentHash),
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
  patch: CardPatch;
  ifMatch?: string | undefined;
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
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, _deck, card) => {
      const data = serialiseContent(patchCard(JSON.parse(card.data) as CardContent, input.patch));
      if (data === card.data) return { columns: null, result: () => cardDto(card) };
      return {
        columns: {},
        apply: (trx) => updateCardData(trx, card.id, data, contentHash(data)),
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
    find: (trx, deck) => findDeckCard(trx, deck.id, input.cardId),
    change: (_trx, deck, card) => {
      const to = Math.max(0, Math.min(deck.cardCount - 1, Math.trunc(input.to)));
      if (to === card.position) return { columns: null, result: (d) => ({ version: d.updatedAt, order: to }) };
      return {
        columns: {},
        apply: async (trx, written) => {
          const ids = (await listCards(trx, written.id)).map((c) => c.id);
          ids.splice(card.position, 1);
          ids.splice(to, 0, card.id);
          const [low, high] = card.position < to ? [card.position, to] : [to, card.position];
          await setCardPositions(trx, written.id, ids.slice(low, high + 1).map((id, i) => ({ id, position: low + i })));
        },
        result: (d) => ({ version: d.updatedAt, order: to }),
      };
    },
  });
}
