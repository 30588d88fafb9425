// Stored deck and cards -> the API's shapes. Key order is fixed so equal decks are equal bytes.
import type { CardDto, DeckDetail, DeckSummary } from './decks.schemas.ts';
import type { DeckRecord, StoredCard } from './decks.repository.ts';

export function deckUrls(publicUrl: string, deckId: string): { previewUrl: string; editUrl: string } {
  const base = `${publicUrl}/decks/${encodeURIComponent(deckId)}`;
  return { previewUrl: base, editUrl: `${base}/edit` };
}

export function deckSummary(deck: DeckRecord, publicUrl: string): DeckSummary {
  return {
    id: deck.id,
    title: deck.title,
    visibility: deck.visibility,
    cardCount: deck.cardCount,
    version: deck.updatedAt,
    description: deck.description,
    lang: deck.lang,
    tags: deck.tags,
    thumbnail: deck.thumbnail,
    ...deckUrls(publicUrl, deck.id),
    updatedAt: deck.updatedAt,
    createdAt: deck.createdAt,
  };
}

export function cardJson(card: StoredCard): string {
  return `{"id":${JSON.stringify(card.id)},"order":${card.position},${card.data.slice(1)}`;
}

export function cardDto(card: StoredCard): CardDto {
  return JSON.parse(cardJson(card)) as CardDto;
}

/** The deck's summary as JSON: the part of a deck read that does not depend on its cards. */
export function deckHeadJson(deck: DeckRecord, publicUrl: string): string {
  return JSON.stringify(deckSummary(deck, publicUrl));
}

export function deckDetailText(head: string, cards: StoredCard[]): string {
  return `${head.slice(0, -1)},"cards":[${cards.map(cardJson).join(',')}]}`;
}

export function deckDetail(deck: DeckRecord, cards: StoredCard[], publicUrl: string): DeckDetail {
  return { ...deckSummary(deck, publicUrl), cards: cards.map(cardDto) };
}
