// `search` and `fetch` in the shape ChatGPT's connectors (and deep-research clients) require
// (DECISIONS "MCP"): search returns {results: [{id, title, url}]} over the user's decks and cards,
// fetch returns {id, title, text, url, metadata} for a deck or card id; url is the previewUrl.
// Anything not the caller's (another user's deck or card, or none) is DECK_NOT_FOUND.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import { exportDeckMarkdown } from '../deck-import/deck-markdown.ts';
import { requireOwnedDeck } from '../decks/deck-write.ts';
import { deckDetail, deckUrls } from '../decks/decks.mappers.ts';
import { listCards } from '../decks/decks.repository.ts';
import { findOwnCard, searchCardHits } from '../decks/deck-search.repository.ts';
import { searchDecks } from '../decks/deck-search.service.ts';
import { queryWords } from '../search-index/search-text.ts';

export interface ConnectorResult { id: string; title: string; url: string }
export interface ConnectorDocument { id: string; title: string; text: string; url: string; metadata: Record<string, unknown> }

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** Decks first (their own text or a card matches), then cards; at most 10 of each. */
export async function connectorSearch(ctx: ServiceContext, actor: Actor, input: { query: string }): Promise<{ results: ConnectorResult[] }> {
  const decks = await searchDecks(ctx, actor, { q: input.query, limit: 10 });
  const cards = await searchCardHits(ctx.db, actor.userId, queryWords(input.query), 10, 0);
  return {
    results: [
      ...decks.items.map((d) => ({ id: d.id, title: d.title, url: d.previewUrl })),
      ...cards.map((c) => {
        const content = JSON.parse(c.data) as { front: string | null; back: string | null };
        return { id: c.cardId, title: shorten(`${c.deckTitle}: ${content.front ?? content.back ?? ''}`, 120), url: deckUrls(ctx.publicUrl, c.deckId).previewUrl };
      }),
    ],
  };
}

/** A deck (as its deck markdown document) or a card (front and back) of the user's, by id. */
export async function connectorFetch(ctx: ServiceContext, actor: Actor, input: { id: string }): Promise<ConnectorDocument> {
  if (input.id.startsWith('crd_')) {
    const card = await findOwnCard(ctx.db, actor.userId, input.id);
    if (card === null) throw new AppError('DECK_NOT_FOUND', `No deck or card of yours has the id ${input.id}`);
    const content = JSON.parse(card.data) as { front: string | null; back: string | null };
    return {
      id: card.cardId,
      title: shorten(`${card.deckTitle}: ${content.front ?? content.back ?? ''}`, 120),
      text: `Front:\n${content.front ?? ''}\n\nBack:\n${content.back ?? ''}`,
      url: deckUrls(ctx.publicUrl, card.deckId).previewUrl,
      metadata: { type: 'card', deckId: card.deckId, deckTitle: card.deckTitle, order: card.position },
    };
  }
  // Named by the caller, not by a path: another user's deck is one the caller has not got.
  const record = await requireOwnedDeck(ctx.db, actor, input.id, 'reference');
  const deck = deckDetail(record, await listCards(ctx.db, record.id), ctx.publicUrl);
  return {
    id: deck.id,
    title: deck.title,
    text: exportDeckMarkdown(deck),
    url: deck.previewUrl,
    metadata: { type: 'deck', cardCount: deck.cardCount, lang: deck.lang, tags: deck.tags, version: deck.version },
  };
}
