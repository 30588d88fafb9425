// POST /decks/import: JSON, markdown or CSV in, one deck out. Markdown and CSV are parsed into the
// JSON body shape first, so every format goes through the same validation, normalisation and writes.
import type { BeforeCommit, ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { assertBody } from '../../validation.ts';
import { contentHash } from '../decks/card-hash.ts';
import { normaliseCard, serialiseContent } from '../cards/card-content.ts';
import type { Actor } from '../identity/principal.ts';
import { deckFieldsFromMeta, sameDeckFields } from '../decks/deck-fields.ts';
import { createDeck, createDeckIn, writeDeck, type NewDeck } from '../decks/deck-write.ts';
import { deckUrls } from '../decks/decks.mappers.ts';
import {
  deleteCardsOfDeck, insertCards, listCards, type DeckFields, type DeckRecord, type StoredCard,
} from '../decks/decks.repository.ts';
import { ImportBodySchema, type ImportBody, type ImportResult, type ImportWarning } from '../decks/decks.schemas.ts';
import { deleteSchedules } from '../reviews/reviews.repository.ts';
import { parseDeckCsv } from './deck-csv.ts';
import { parseDeckMarkdown } from './deck-markdown.ts';

function deckFieldsOf(deck: DeckRecord): DeckFields {
  return { title: deck.title, description: deck.description, lang: deck.lang, visibility: deck.visibility, tags: deck.tags, thumbnail: deck.thumbnail };
}

export type ImportSource =
  | { format: 'json'; body: ImportBody }
  | { format: 'markdown'; text: string }
  /** Cards only: `title` and `lang` name a new deck (an update keeps the deck's own metadata). */
  | { format: 'csv'; text: string; title?: string | undefined; lang?: string | undefined };

/** A new deck from CSV without a `title`. */
export const CSV_DEFAULT_TITLE = 'Imported deck';

export interface ImportRequest {
  source: ImportSource;
  mode: 'create' | 'update';
  targetDeckId?: string;
  ifMatch?: string;
}

export interface PreparedImport {
  fields: DeckFields;
  /** The source carries no deck metadata (CSV): an update keeps the deck's. */
  cardsOnly: boolean;
  contents: string[];
  warnings: ImportWarning[];
}

async function bodyOf(source: ImportSource, mode: 'create' | 'update', warnings: ImportWarning[]): Promise<ImportBody> {
  if (source.format === 'json') return source.body;
  if (source.format === 'markdown') return assertBody(ImportBodySchema, parseDeckMarkdown(source.text));
  const csv = await parseDeckCsv(source.text);
  warnings.push(...csv.warnings);
  if (source.title === undefined && mode === 'create') warnings.push({ code: 'TITLE_DEFAULTED', message: `No title was given; the deck is called "${CSV_DEFAULT_TITLE}"` });
  return assertBody(ImportBodySchema, { deck: { title: source.title ?? CSV_DEFAULT_TITLE, lang: source.lang ?? 'en' }, cards: csv.cards });
}

async function prepare(source: ImportSource, mode: 'create' | 'update'): Promise<PreparedImport> {
  const warnings: ImportWarning[] = [];
  const body = await bodyOf(source, mode, warnings);
  return prepareBody(body, source.format === 'csv', warnings);
}

/** An import body validated, normalised and serialised: what the writes need. */
export function prepareBody(body: ImportBody, cardsOnly: boolean, warnings: ImportWarning[] = []): PreparedImport {
  const fields = deckFieldsFromMeta(body.deck, warnings);
  const contents = body.cards.map((card, i) => {
    const { content, warnings: cardWarnings } = normaliseCard(card, `cards[${i}]`, i);
    warnings.push(...cardWarnings);
    return serialiseContent(content);
  });
  return { fields, cardsOnly, contents, warnings };
}

function result(ctx: ServiceContext, deck: DeckRecord, mode: 'create' | 'update', warnings: ImportWarning[]): ImportResult {
  return {
    deckId: deck.id,
    cardCount: deck.cardCount,
    mode,
    ...deckUrls(ctx.publicUrl, deck.id),
    visibility: deck.visibility,
    title: deck.title,
    version: deck.updatedAt,
    warnings,
  };
}

function newDeck(ctx: ServiceContext, prepared: PreparedImport, beforeCommit?: BeforeCommit<ImportResult>): NewDeck<ImportResult> {
  return {
    fields: prepared.fields,
    cardCount: prepared.contents.length,
    apply: (trx, deck) => insertCards(trx, deck, prepared.contents.map((data, i) => ({ id: newId('crd'), position: i, data })), contentHash),
    result: (deck) => result(ctx, deck, 'create', prepared.warnings),
    beforeCommit,
  };
}

/** A prepared import as a new deck inside the caller's transaction (an Anki package's decks). */
export async function createImportedDeckIn(ctx: ServiceContext, trx: Db, actor: Actor, prepared: PreparedImport): Promise<{ deck: DeckRecord; result: ImportResult }> {
  return createDeckIn(ctx, trx, actor, newDeck(ctx, prepared));
}

export async function importDeck(
  ctx: ServiceContext, actor: Actor, request: ImportRequest, beforeCommit?: BeforeCommit<ImportResult>,
): Promise<ImportResult> {
  const prepared = await prepare(request.source, request.mode);
  if (request.mode === 'create') return createDeck(ctx, actor, newDeck(ctx, prepared, beforeCommit));
  if (request.targetDeckId === undefined) {
    throw new AppError('BAD_REQUEST', 'query parameter targetDeckId is required when mode=update', { field: 'targetDeckId' });
  }
  return replaceDeck(ctx, actor, request.targetDeckId, prepared, request.ifMatch, beforeCommit);
}

/**
 * Every incoming card that matches an existing card by content keeps that card's id (and so its
 * review history); a payload identical to the current deck changes nothing, not even `version`.
 */
function matchCards(existing: StoredCard[], contents: string[]): StoredCard[] {
  // Ids of equal cards in deck order, taken front to back: linear even when every card is equal.
  const available = new Map<string, { ids: string[]; next: number }>();
  for (const card of existing) {
    const entry = available.get(card.data);
    if (entry) entry.ids.push(card.id);
    else available.set(card.data, { ids: [card.id], next: 0 });
  }
  return contents.map((data, position) => {
    const entry = available.get(data);
    const id = entry && entry.next < entry.ids.length ? entry.ids[entry.next++] : undefined;
    return { id: id ?? newId('crd'), position, data };
  });
}

async function replaceDeck(
  ctx: ServiceContext, actor: Actor, deckId: string, prepared: PreparedImport, ifMatch: string | undefined,
  beforeCommit: BeforeCommit<ImportResult> | undefined,
): Promise<ImportResult> {
  return writeDeck(ctx, actor, {
    deckId,
    named: 'reference',
    ifMatch,
    beforeCommit,
    change: async (trx, deck) => {
      const existing = await listCards(trx, deck.id);
      const next = matchCards(existing, prepared.contents);
      const finish = (written: DeckRecord) => result(ctx, written, 'update', prepared.warnings);
      const fields = prepared.cardsOnly ? deckFieldsOf(deck) : prepared.fields;
      const unchanged = sameDeckFields(fields, deck)
        && next.length === existing.length
        && next.every((c, i) => c.id === existing[i]?.id && c.data === existing[i]?.data);
      if (unchanged) return { columns: null, result: finish };
      return {
        columns: { ...fields, cardCount: next.length },
        apply: async (tx, written) => {
          await deleteCardsOfDeck(tx, written.id);
          await insertCards(tx, written, next, contentHash);
          // A card the import drops takes its review schedule with it; kept cards keep theirs.
          const kept = new Set(next.map((c) => c.id));
          await deleteSchedules(tx, actor.userId, existing.filter((c) => !kept.has(c.id)).map((c) => c.id));
        },
        result: finish,
      };
    },
  });
}
