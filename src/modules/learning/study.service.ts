// Studying the way Anki users do it (DECISIONS "Web pages"): what the study pages compute besides
// the interval each rating would give (the rating buttons), and the cards' fronts as plain text
// (the end-of-session summary names cards by them). No HTTP, and no SQL here: the intervals come
// from the scheduler the review service answers with, so a button says what a rating will do. The
// due and new counts are the reviews module's (`dueCountsOfDecks`, the figures of GET /reviews/due).
import type { ServiceContext } from '../../context.ts';
import type { Actor } from '../identity/principal.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import { listCards } from '../decks/decks.repository.ts';
import { findSchedule } from '../reviews/reviews.repository.ts';
import type { ReviewRating } from '../reviews/reviews.schemas.ts';
import { previewDueTimes } from '../reviews/scheduling.ts';

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
