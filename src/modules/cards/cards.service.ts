import { nextVersion } from '../../clock.ts';
import { ConcurrentUpdate, inTransaction, type BeforeCommit, type ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';

import { cardDto } from '../decks/decks.mappers.ts';
import { findCard, insertCards, updateCardData, updateDeckIfUnchanged, type StoredCard } from '../decks/decks.repository.ts';
import { MAX_CARDS_PER_DECK, type AppendCardsResult, type CardDto, type CardInput, type CardPatch } from '../decks/decks.schemas.ts';
import { assertVersion, requireOwnedDeck } from '../decks/decks.service.ts';
import type { Principal } from '../tokens/tokens.service.ts';
import { contentHash } from './card-hash.ts';
import { normaliseCard, patchCard, serialiseContent, type CardContent } from './card-content.ts';

export async function appendCards(
  ctx: ServiceContext, principal: Principal, deckId: string, cards: CardInput[], ifMatch?: string,
  beforeCommit?: BeforeCommit<AppendCardsResult>,
): Promise<AppendCardsResult> {
  const contents = cards.map((card, i) => serialiseContent(normaliseCard(card, `cards[${i}]`, i).content));
  const result = await inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, principal, deckId, 'path');
    assertVersion(deck, ifMatch);
    if (deck.cardCount + contents.length > MAX_CARDS_PER_DECK) {
      throw new AppError('TOO_MANY_CARDS', `The deck has ${deck.cardCount} cards; appending ${contents.length} would exceed ${MAX_CARDS_PER_DECK}`, {
        field: 'cards', cardCount: deck.cardCount, limit: MAX_CARDS_PER_DECK,
      });
    }
    const added: StoredCard[] = contents.map((data, i) => ({ id: newId('crd'), position: deck.cardCount + i, data }));
    const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
    const cardCount = deck.cardCount + added.length;
    // The compare-and-set on the deck comes first: a concurrent append loses here and retries,
    // so positions stay contiguous and the deck never passes 250 cards.
    if (!(await updateDeckIfUnchanged(trx, deck.id, deck.updatedAt, { cardCount, updatedAt }))) throw new ConcurrentUpdate();
    await insertCards(trx, deck.id, added, contentHash);
    const result = { deckId: deck.id, addedCount: added.length, cardCount, version: updatedAt, cards: added.map(cardDto) };
    await beforeCommit?.(trx, result);
    return result;
  });
  await ctx.deckVersions.publish(result.deckId, result.version);
  return result;
}

export async function patchDeckCard(
  ctx: ServiceContext, principal: Principal, deckId: string, cardId: string, patch: CardPatch, ifMatch?: string,
): Promise<CardDto> {
  const { card, deck } = await inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, principal, deckId, 'path');
    const card = await findCard(trx, deck.id, cardId);
    if (!card) throw new AppError('CARD_NOT_FOUND', `Card ${cardId} was not found in deck ${deck.id}`);
    assertVersion(deck, ifMatch);
    const data = serialiseContent(patchCard(JSON.parse(card.data) as CardContent, patch));
    if (data === card.data) return { card, deck };
    const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
    if (!(await updateDeckIfUnchanged(trx, deck.id, deck.updatedAt, { updatedAt }))) throw new ConcurrentUpdate();
    await updateCardData(trx, card.id, data, contentHash(data));
    return { card: { ...card, data }, deck: { ...deck, updatedAt } };
  });
  await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return cardDto(card);
}

