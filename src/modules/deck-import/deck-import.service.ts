// POST /decks/import: JSON or markdown in, one deck out. Markdown is parsed into the JSON body
// shape first, so both formats go through the same validation, normalisation and writes.
import { nextVersion } from '../../clock.ts';
import { ConcurrentUpdate, inTransaction, type BeforeCommit, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { assertBody } from '../../validation.ts';
import { contentHash } from '../cards/card-hash.ts';
import { normaliseCard, serialiseContent } from '../cards/card-content.ts';
import { deckFieldsFromMeta, sameDeckFields } from '../decks/deck-fields.ts';
import { deckUrls } from '../decks/decks.mappers.ts';
import {
  countDecksOfUser, deleteCardsOfDeck, insertCards, insertDeck, listCards, updateDeckIfUnchanged,
  type DeckFields, type DeckRecord, type StoredCard,
} from '../decks/decks.repository.ts';
import { ImportBodySchema, type ImportBody, type ImportResult, type ImportWarning } from '../decks/decks.schemas.ts';
import { assertVersion, requireOwnedDeck } from '../decks/decks.service.ts';
import type { Principal } from '../tokens/tokens.service.ts';
import { deleteSchedules } from '../reviews/reviews.repository.ts';
import { lockUser } from '../users/users.repository.ts';
import { parseDeckMarkdown } from './deck-markdown.ts';

export type ImportSource = { format: 'json'; body: ImportBody } | { format: 'markdown'; text: string };

export interface ImportRequest {
  source: ImportSource;
  mode: 'create' | 'update';
  targetDeckId?: string;
  ifMatch?: string;
}

interface PreparedImport {
  fields: DeckFields;
  contents: string[];
  warnings: ImportWarning[];
}

function prepare(source: ImportSource): PreparedImport {
  const body = source.format === 'json'
    ? source.body
    : assertBody<ImportBody>(ImportBodySchema, parseDeckMarkdown(source.text));
  const warnings: ImportWarning[] = [];
  const fields = deckFieldsFromMeta(body.deck, warnings);
  const contents = body.cards.map((card, i) => {
    const { content, warnings: cardWarnings } = normaliseCard(card, `cards[${i}]`, i);
    warnings.push(...cardWarnings);
    return serialiseContent(content);
  });
  return { fields, contents, warnings };
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

export async function importDeck(
  ctx: ServiceContext, principal: Principal, request: ImportRequest, beforeCommit?: BeforeCommit<ImportResult>,
): Promise<ImportResult> {
  const prepared = prepare(request.source);
  const done = async (trx: Db, result: ImportResult) => {
    await beforeCommit?.(trx, result);
    return result;
  };
  let imported: ImportResult;
  if (request.mode === 'create') {
    imported = await createDeck(ctx, principal, prepared, done);
  } else if (request.targetDeckId === undefined) {
    throw new AppError('BAD_REQUEST', 'query parameter targetDeckId is required when mode=update', { field: 'targetDeckId' });
  } else {
    imported = await replaceDeck(ctx, principal, request.targetDeckId, prepared, request.ifMatch, done);
  }
  if (imported.version) await ctx.deckVersions.publish(imported.deckId, imported.version);
  return imported;
}

type Finish = (trx: Db, result: ImportResult) => Promise<ImportResult>;

async function createDeck(ctx: ServiceContext, principal: Principal, prepared: PreparedImport, finish: Finish): Promise<ImportResult> {
  return inTransaction(ctx.db, async (trx) => {
    await lockUser(trx, principal.userId);
    if (ctx.deckLimit !== null && (await countDecksOfUser(trx, principal.userId)) >= ctx.deckLimit) {
      throw new AppError('DECK_LIMIT_REACHED', `The deck limit of ${ctx.deckLimit} decks is reached`, { deckLimit: ctx.deckLimit });
    }
    const now = nextVersion(ctx.clock, null);
    const deck: DeckRecord = {
      id: newId('dck'),
      userId: principal.userId,
      ...prepared.fields,
      cardCount: prepared.contents.length,
      createdAt: now,
      updatedAt: now,
    };
    await insertDeck(trx, deck);
    await insertCards(trx, deck.id, prepared.contents.map((data, i) => ({ id: newId('crd'), position: i, data })), contentHash);
    return finish(trx, result(ctx, deck, 'create', prepared.warnings));
  });
}

/**
 * Every incoming card that matches an existing card by content keeps that card's id (and so its
 * review history); a payload identical to the current deck changes nothing, not even `version`.
 */
function matchCards(existing: StoredCard[], contents: string[]): StoredCard[] {
  const available = new Map<string, string[]>();
  for (const card of existing) available.set(card.data, [...(available.get(card.data) ?? []), card.id]);
  return contents.map((data, position) => {
    const ids = available.get(data);
    const id = ids && ids.length > 0 ? (ids.shift() as string) : newId('crd');
    return { id, position, data };
  });
}

async function replaceDeck(
  ctx: ServiceContext, principal: Principal, deckId: string, prepared: PreparedImport, ifMatch: string | undefined, finish: Finish,
): Promise<ImportResult> {
  return inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, principal, deckId, 'reference');
    assertVersion(deck, ifMatch);
    const existing = await listCards(trx, deck.id);
    const next = matchCards(existing, prepared.contents);
    const unchanged = sameDeckFields(prepared.fields, deck)
      && next.length === existing.length
      && next.every((c, i) => c.id === existing[i]?.id && c.data === existing[i]?.data);
    if (unchanged) return finish(trx, result(ctx, deck, 'update', prepared.warnings));
    const updatedAt = nextVersion(ctx.clock, deck.updatedAt);
    const changes = { ...prepared.fields, cardCount: next.length, updatedAt };
    if (!(await updateDeckIfUnchanged(trx, deck.id, deck.updatedAt, changes))) throw new ConcurrentUpdate();
    await deleteCardsOfDeck(trx, deck.id);
    await insertCards(trx, deck.id, next, contentHash);
    // A card the import drops takes its review schedule with it; kept cards keep theirs.
    const kept = new Set(next.map((c) => c.id));
    await deleteSchedules(trx, principal.userId, existing.filter((c) => !kept.has(c.id)).map((c) => c.id));
    return finish(trx, result(ctx, { ...deck, ...changes }, 'update', prepared.warnings));
  });
}
