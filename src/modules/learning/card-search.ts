// Card search in the editor of a big deck: which of a deck's cards hold every word of a query, in
// any side, their info, subject, topic, tags or image alt text, case- and accent-insensitively. A
// deck holds at most 250 cards, each side at most 4000 characters, so a linear scan of the cards
// the editor has already read costs well under a millisecond and needs no index.
import type { CardDto } from '../decks/decks.schemas.ts';

/** Lower case, accents removed (NFD, combining marks dropped): `Adiós` finds `adios`. */
export function folded(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function searchableText(card: CardDto): string {
  const extras = card.extras as Record<string, unknown>;
  const parts: unknown[] = [card.front, card.back, card.frontMedia?.imageAlt, card.backMedia?.imageAlt, extras.info, extras.subject, extras.topic];
  if (Array.isArray(extras.tags)) parts.push(...(extras.tags as unknown[]));
  return folded(parts.filter((p): p is string => typeof p === 'string').join('\n'));
}

/** The cards that hold every word of `query`, in deck order; all of them for a blank query. */
export function searchCards<C extends CardDto>(cards: readonly C[], query: string): C[] {
  const words = folded(query).split(/\s+/).filter((w) => w !== '').slice(0, 20);
  if (words.length === 0) return [...cards];
  return cards.filter((card) => {
    const text = searchableText(card);
    return words.every((word) => text.includes(word));
  });
}
