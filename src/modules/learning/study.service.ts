// Studying the way Anki users do it (DECISIONS "Web pages"): how many cards of each deck are due
// and new (the home page), the interval each rating would give (the rating buttons), and the
// cards' fronts as plain text (the end-of-session summary names cards by them). No HTTP, and no
// SQL here: the counts come from the learning module's repository, the intervals from the
// scheduler the review service answers with, so a button says what a rating will do.
import type { ServiceContext } from '../../context.ts';
import type { Actor } from '../identity/principal.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import { listCards } from '../decks/decks.repository.ts';
import { findSchedule } from '../reviews/reviews.repository.ts';
import type { ReviewRating } from '../reviews/reviews.schemas.ts';
import { previewDueTimes } from '../reviews/scheduling.ts';
import { countDueCards, type DeckDueCount } from './due-counts.repository.ts';

export type { DeckDueCount } from './due-counts.repository.ts';

/**
 * Due and new counts of the actor's decks `deckIds` (a deck without cards: zeros). The shape of
 * `GET /reviews/due`'s entries, so the pages can move to that service in one line when it lands.
 */
export async function dueCountsOf(ctx: ServiceContext, actor: Actor, input: { deckIds: readonly string[] }): Promise<Map<string, DeckDueCount>> {
  const counts = await countDueCards(ctx.db, actor.userId, input.deckIds, ctx.clock.now().toISOString());
  for (const deckId of input.deckIds) if (!counts.has(deckId)) counts.set(deckId, { deckId, due: 0, new: 0, nextDueAt: null });
  return counts;
}

export async function dueCountOf(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<DeckDueCount> {
  const counts = await dueCountsOf(ctx, actor, { deckIds: [input.deckId] });
  return counts.get(input.deckId) ?? { deckId: input.deckId, due: 0, new: 0, nextDueAt: null };
}

/** When the card would next be due after each rating now, by the same scheduler as an answer. */
export async function ratingDueTimes(ctx: ServiceContext, actor: Actor, input: { cardId: string }): Promise<{ now: string; due: Record<ReviewRating, string> }> {
  const now = ctx.clock.now();
  return { now: now.toISOString(), due: previewDueTimes(await findSchedule(ctx.db, actor.userId, input.cardId), now) };
}

/** A card's one-line name: the start of its front (or back), as plain text. */
export function cardName(card: { front: string | null; back: string | null }): string {
  const source = (card.front ?? card.back ?? '').replace(/\s+/g, ' ').trim();
  return source.length > 60 ? `${source.slice(0, 59)}…` : source || '(image only)';
}

/** The deck's cards by id, named by their fronts (the deck is the caller's to read). */
export async function cardNamesOf(ctx: ServiceContext, input: { deckId: string }): Promise<Map<string, string>> {
  return new Map((await listCards(ctx.db, input.deckId)).map(cardDto).map((card) => [card.id, cardName(card)]));
}
