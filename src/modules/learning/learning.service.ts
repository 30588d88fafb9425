// The learning view's reads and the owner's ratings, for the web pages. No HTTP: the pages call
// these with the signed-in person (or null) as the actor. Visibility (DECISIONS "Web pages"):
// a private deck exists only for its owner; anyone else, signed in or not, is told it does not
// exist, exactly as for a missing deck. Ratings go through the review service the API uses.
import type { ServiceContext } from '../../context.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import type { CardDto } from '../decks/decks.schemas.ts';
import { findDeck, listCards, type DeckRecord } from '../decks/decks.repository.ts';
import { deckNotFound } from '../decks/decks.service.ts';
import type { RenderedCard } from '../rendering/card-renderer.ts';
import type { RenderedDeck } from '../rendering/rendered-deck-cache.ts';
import { answerCard, completeSession, findActiveSessionOfDeck, getSession, startSession } from '../reviews/reviews.service.ts';
import type { ReviewRating, Session } from '../reviews/reviews.schemas.ts';
import { dueCountsOfDecks, type DeckDueCount } from '../reviews/review-overview.service.ts';

export interface DeckPage {
  deck: DeckRecord;
  /** Whether the viewer is the deck's owner (who rates and edits). */
  isOwner: boolean;
  rendered: RenderedDeck;
}

/** Whether `viewer` may see the deck in the learning view. */
export function canView(deck: Pick<DeckRecord, 'userId' | 'visibility'>, viewer: Actor | null): boolean {
  return deck.visibility !== 'private' || viewer?.userId === deck.userId;
}

/**
 * A deck the viewer may see, rendered (once per deck version, shared by every view of it):
 * DECK_NOT_FOUND for a missing deck and for another person's private deck alike.
 */
export async function openDeck(ctx: ServiceContext, viewer: Actor | null, input: { deckId: string }): Promise<DeckPage> {
  const deck = await findDeck(ctx.db, input.deckId);
  if (deck === null || !canView(deck, viewer)) throw deckNotFound();
  const cache = ctx.renderedDecks.loaded ?? await ctx.renderedDecks.get();
  const rendered = cache.get(deck.id, deck.updatedAt)
    ?? await cache.render(deck.id, deck.updatedAt, (await listCards(ctx.db, deck.id)).map(cardDto));
  return { deck, isOwner: viewer?.userId === deck.userId, rendered };
}

/** The cards of a deck the viewer opened (the editor lists them), in deck order. */
export async function cardsOfDeck(ctx: ServiceContext, page: DeckPage): Promise<CardDto[]> {
  return (await listCards(ctx.db, page.deck.id)).map(cardDto);
}

/** The deck for its owner only (the editor): DECK_NOT_FOUND for anyone else, as in the learning view. */
export async function openOwnDeck(ctx: ServiceContext, owner: Actor, input: { deckId: string }): Promise<DeckPage> {
  const page = await openDeck(ctx, owner, input);
  if (!page.isOwner) throw deckNotFound();
  return page;
}

export type StudyState =
  | { kind: 'card'; session: Session; card: RenderedCard; position: number }
  | { kind: 'nothing-due'; counts: DeckDueCount }
  | { kind: 'completed'; session: Session; counts: DeckDueCount };

/**
 * How the learning view starts a session: never resuming here (an active session with cards left
 * is resumed before this is reached, and an empty one must not be: it would hide every card that
 * came due or was added since), and with `relearn` (DECISIONS: the learning view's sessions use it),
 * so a card rated Again comes back at the end, up to 3 times.
 */
const LEARNING_VIEW_SESSION = { resume: false, relearn: true } as const;

/**
 * The session's next unanswered place in its queue. A card's k-th place is answered once it has k
 * answers, so a card that `relearn` brought back (its id again at the end of `cards`) is asked
 * again, and the position counts places, not cards.
 */
function nextCard(session: Session, rendered: RenderedDeck): { card: RenderedCard; position: number } | null {
  const answers = new Map<string, number>();
  for (const a of session.answers) answers.set(a.cardId, (answers.get(a.cardId) ?? 0) + 1);
  const byId = new Map(rendered.cards.map((card) => [card.id, card]));
  const seen = new Map<string, number>();
  for (const id of session.cards) {
    const place = (seen.get(id) ?? 0) + 1;
    seen.set(id, place);
    const card = byId.get(id);
    if (place > (answers.get(id) ?? 0) && card !== undefined) return { card, position: session.answers.length + 1 };
  }
  return null;
}

/** The deck's due and new counts (the figures of GET /reviews/due for this deck). */
async function dueCountOf(ctx: ServiceContext, owner: Actor, page: DeckPage): Promise<DeckDueCount> {
  const counts = await dueCountsOfDecks(ctx, owner, { decks: [page.deck] });
  return counts.get(page.deck.id) ?? { deckId: page.deck.id, due: 0, new: 0, nextDueAt: null };
}

/**
 * The owner's review of the deck: the active session resumed while it has cards left, else a new
 * one when a card is due or new (nothing is started when none is: the page says when the next
 * card is due), and its next unanswered card. A session with every card answered (say, through
 * the API) is completed here; `sessionId` names a finished session whose statistics the page shows.
 */
export async function studyDeck(ctx: ServiceContext, owner: Actor, page: DeckPage, input: { sessionId?: string | undefined }): Promise<StudyState> {
  const deckId = page.deck.id;
  if (input.sessionId !== undefined) {
    const session = await getSession(ctx, owner, { sessionId: input.sessionId });
    if (session.deckId !== deckId) throw new AppError('SESSION_NOT_FOUND', `Review session ${input.sessionId} was not found`);
    if (session.status === 'completed') return { kind: 'completed', session, counts: await dueCountOf(ctx, owner, page) };
  }
  const active = await findActiveSessionOfDeck(ctx, owner, { deckId });
  if (active !== null && active.cards.length > 0) {
    const next = nextCard(active, page.rendered);
    if (next !== null) return { kind: 'card', session: active, ...next };
    const completed = await completeSession(ctx, owner, { sessionId: active.id });
    return { kind: 'completed', session: completed, counts: await dueCountOf(ctx, owner, page) };
  }
  const counts = await dueCountOf(ctx, owner, page);
  if (counts.due + counts.new === 0) return { kind: 'nothing-due', counts };
  // Replaces an empty active session (one started with nothing due, before this rule) by a new one.
  const session = await startSession(ctx, owner, { deckId, ...LEARNING_VIEW_SESSION });
  const next = nextCard(session, page.rendered);
  if (next === null) return { kind: 'nothing-due', counts };
  return { kind: 'card', session, ...next };
}

export interface RateInput {
  sessionId: string;
  cardId: string;
  rating: ReviewRating;
  durationMs?: number | undefined;
}

/** One rating, through the review service; the session is completed with its last card. */
export async function rateCard(ctx: ServiceContext, owner: Actor, input: RateInput): Promise<{ completed: boolean }> {
  const result = await answerCard(ctx, owner, input);
  if (result.progress.remaining > 0) return { completed: false };
  await completeSession(ctx, owner, { sessionId: input.sessionId });
  return { completed: true };
}
