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

const CARDS_AFTER_HEAD = ',"cards":[';

export function deckDetailText(head: string, cards: StoredCard[]): string {
  return `${head.slice(0, -1)}${CARDS_AFTER_HEAD}${cards.map(cardJson).join(',')}]}`;
}

/**
 * The summary at the head of deckDetailText's bytes, without parsing the cards (a deck of 250 full
 * cards is megabytes). The head's values are strings, numbers, null and a list of strings, so the
 * first `,"cards":[` outside a string (inside one, `"` is escaped) is where the cards begin.
 */
export function deckSummaryOfText(body: Buffer): DeckSummary {
  const end = body.indexOf(CARDS_AFTER_HEAD);
  if (end < 0) throw new Error('not the bytes of a deck read');
  return JSON.parse(`${body.toString('utf8', 0, end)}}`) as DeckSummary;
}

export function deckDetail(deck: DeckRecord, cards: StoredCard[], publicUrl: string): DeckDetail {
  return { ...deckSummary(deck, publicUrl), cards: cards.map(cardDto) };
}
