// Public decks (DECISIONS "Beyond the spec's operations"): every user's `public` decks listed and
// searched (never `unlisted` or `private` ones), a public or unlisted deck read by id, and a copy
// of one into the caller's own decks. Nothing about the owner is shown, nor the owner's editUrl.
import type { BeforeCommit, ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { contentHash } from './card-hash.ts';
import type { Actor } from '../identity/principal.ts';
import { searchDeckIds } from './deck-search.repository.ts';
import { offsetOf, offsetPage, searchListName } from './deck-search.service.ts';
import { queryWords } from '../search-index/search-text.ts';
import type { CopiedDeck, PublicDeck, PublicDeckList, PublicDeckSummary } from './deck-search.schemas.ts';
import { decodeDeckCursor, encodeDeckCursor } from './deck-cursor.ts';
import { createDeck } from './deck-write.ts';
import { deckDetail, deckSummary } from './decks.mappers.ts';
import { findDeck, findDecks, insertCards, listCards, listPublicDeckRecords, type DeckRecord, type StoredCard } from './decks.repository.ts';

function publicSummary(deck: DeckRecord, publicUrl: string): PublicDeckSummary {
  const { editUrl: _editUrl, ...summary } = deckSummary(deck, publicUrl);
  return summary;
}

export interface PublicDecksInput {
  limit: number;
  token?: string | undefined;
  q?: string | undefined;
  tag?: string | undefined;
  lang?: string | undefined;
}

/** GET /public/decks: newest first, or matching `q` by relevance; filtered by tag and language. */
export async function listPublicDecks(ctx: ServiceContext, input: PublicDecksInput): Promise<PublicDeckList> {
  const filters = { tagKey: input.tag?.trim().toLowerCase(), lang: input.lang };
  if (input.q === undefined) {
    const after = input.token === undefined ? null : decodeDeckCursor(ctx.secrets.cursorKey, input.token);
    const rows = await listPublicDeckRecords(ctx.db, input.limit + 1, after, filters);
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    return {
      decks: page.map((d) => publicSummary(d, ctx.publicUrl)),
      nextToken: rows.length > input.limit && last ? encodeDeckCursor(ctx.secrets.cursorKey, { updatedAt: last.updatedAt, id: last.id }) : null,
    };
  }
  const list = searchListName('public', [input.q, filters.tagKey, filters.lang]);
  const offset = offsetOf(ctx.secrets.cursorKey, input.token, list);
  const ids = await searchDeckIds(ctx.db, 'public', queryWords(input.q), filters, input.limit + 1, offset);
  const page = offsetPage(ctx.secrets.cursorKey, ids, input.limit, offset, list);
  const decks = (await findDecks(ctx.db, page.rows)).filter((d) => d.visibility === 'public');
  return { decks: decks.map((d) => publicSummary(d, ctx.publicUrl)), nextToken: page.nextToken };
}

/** A deck anyone with a public-decks:read token may read: public or unlisted; else DECK_NOT_FOUND. */
async function requireSharedDeck(ctx: ServiceContext, deckId: string): Promise<{ deck: DeckRecord; cards: StoredCard[] }> {
  const deck = await findDeck(ctx.db, deckId);
  if (deck === null || deck.visibility === 'private') throw new AppError('DECK_NOT_FOUND', `Deck ${deckId} was not found`);
  return { deck, cards: await listCards(ctx.db, deck.id) };
}

/** GET /public/decks/{deckId}: a public or unlisted deck with its cards. */
export async function getPublicDeck(ctx: ServiceContext, input: { deckId: string }): Promise<PublicDeck> {
  const { deck, cards } = await requireSharedDeck(ctx, input.deckId);
  const { editUrl: _editUrl, ...detail } = deckDetail(deck, cards, ctx.publicUrl);
  return detail;
}

/**
 * POST /public/decks/{deckId}/copy: a private copy of a public or unlisted deck in the caller's
 * decks (new ids, no review history), within the deck limit.
 */
export async function copyPublicDeck(
  ctx: ServiceContext, actor: Actor, input: { deckId: string }, beforeCommit?: BeforeCommit<CopiedDeck>,
): Promise<CopiedDeck> {
  const { deck: source, cards } = await requireSharedDeck(ctx, input.deckId);
  const copies: StoredCard[] = cards.map((c) => ({ id: newId('crd'), position: c.position, data: c.data }));
  return createDeck(ctx, actor, {
    fields: {
      title: source.title, description: source.description, lang: source.lang, visibility: 'private', tags: source.tags, thumbnail: source.thumbnail,
    },
    cardCount: copies.length,
    apply: (trx, deck) => insertCards(trx, deck, copies, contentHash),
    result: (deck) => ({ ...deckDetail(deck, copies, ctx.publicUrl), copiedFrom: source.id }),
    beforeCommit,
  });
}
