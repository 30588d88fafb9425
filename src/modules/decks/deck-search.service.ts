// Search of one's own decks and cards (GET /decks?q=&tag=, GET /search?q=), over the database's
// full-text index (search.repository.ts). A page of results by relevance is continued by an
// offset carried in a signed token bound to the query, so a token of another query is refused.
import { createHash } from 'node:crypto';
import type { ServiceContext } from '../../context.ts';
import { continuationOf, encodeCursor } from '../../keyset-cursor.ts';
import type { Actor } from '../identity/principal.ts';
import { deckSummary } from './decks.mappers.ts';
import { findDecks } from './decks.repository.ts';
import type { DeckList } from './decks.schemas.ts';
import { searchCardHits, searchDeckIds } from './deck-search.repository.ts';
import { queryWords } from '../search-index/search-text.ts';
import type { SearchResults } from './deck-search.schemas.ts';

/** The list a continuation token of a search belongs to: the operation and its query. */
export function searchListName(operation: string, parts: readonly (string | undefined)[]): string {
  return `${operation}:${createHash('sha256').update(JSON.stringify(parts)).digest('base64url').slice(0, 16)}`;
}

/** Offset of the next page of a search, or null on the last page. */
export function offsetPage<T>(key: string, rows: readonly T[], limit: number, offset: number, list: string): { rows: T[]; nextToken: string | null } {
  return { rows: rows.slice(0, limit), nextToken: rows.length > limit ? encodeCursor(key, [offset + limit, list]) : null };
}

export function offsetOf(key: string, token: string | undefined, list: string): number {
  return (continuationOf(key, token, list, ['number'])?.[0] as number | undefined) ?? 0;
}

export interface ListDecksInput {
  limit: number;
  token?: string | undefined;
  q?: string | undefined;
  tag?: string | undefined;
}

/** GET /decks?q=: the user's decks matching every word of `q` (and the tag, if any), by relevance. */
export async function searchDecks(ctx: ServiceContext, actor: Actor, input: ListDecksInput & { q: string }): Promise<DeckList> {
  const tagKey = input.tag?.trim().toLowerCase();
  const list = searchListName('decks', [input.q, tagKey]);
  const offset = offsetOf(ctx.secrets.cursorKey, input.token, list);
  const ids = await searchDeckIds(ctx.db, { userId: actor.userId }, queryWords(input.q), { tagKey }, input.limit + 1, offset);
  const page = offsetPage(ctx.secrets.cursorKey, ids, input.limit, offset, list);
  return { items: (await findDecks(ctx.db, page.rows)).map((d) => deckSummary(d, ctx.publicUrl)), nextToken: page.nextToken };
}

/** GET /search: the user's cards holding every word of `q`, by relevance. */
export async function searchCards(ctx: ServiceContext, actor: Actor, input: { q: string; limit: number; token?: string | undefined }): Promise<SearchResults> {
  const list = searchListName('cards', [input.q]);
  const offset = offsetOf(ctx.secrets.cursorKey, input.token, list);
  const hits = await searchCardHits(ctx.db, actor.userId, queryWords(input.q), input.limit + 1, offset);
  const page = offsetPage(ctx.secrets.cursorKey, hits, input.limit, offset, list);
  return {
    results: page.rows.map((hit) => {
      const content = JSON.parse(hit.data) as { front: string | null; back: string | null };
      return { deckId: hit.deckId, deckTitle: hit.deckTitle, cardId: hit.cardId, order: hit.position, front: content.front, back: content.back };
    }),
    nextToken: page.nextToken,
  };
}
