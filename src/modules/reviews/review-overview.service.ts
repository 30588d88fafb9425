// What a user's reviews look like from above (DECISIONS "Beyond the spec's operations", due and
// history): what is due per deck, each card's FSRS state in one deck, and past sessions.
import type { ServiceContext } from '../../context.ts';
import { continuationOf, keysetPage } from '../../keyset-cursor.ts';
import type { Actor } from '../identity/principal.ts';
import { requireOwnedDeck } from '../decks/deck-write.ts';
import { listCards, listDeckHeadsOfUser } from '../decks/decks.repository.ts';
import { dueCountsOfUser, listSchedulesOfDeck, listSessionsOfUser, type DeckDueCounts, type SessionRecord } from './reviews.repository.ts';
import type { Due, Schedule, SessionList, SessionStatus, SessionSummary } from './reviews.schemas.ts';

/** ts-fsrs's State, by its number as stored. */
const STATES = ['new', 'learning', 'review', 'relearning'] as const;

/** One deck's due and new counts and next due time: an entry of `GET /reviews/due` without its title. */
export type DeckDueCount = Omit<Due['decks'][number], 'title'>;

interface CountedDeck { id: string; cardCount: number }

/** New cards are the deck's cards the user never reviewed (those without a schedule). */
function deckDueCount(deck: CountedDeck, c: DeckDueCounts | undefined): DeckDueCount {
  return { deckId: deck.id, due: c?.due ?? 0, new: Math.max(0, deck.cardCount - (c?.reviewed ?? 0)), nextDueAt: c?.nextDue ?? null };
}

/** Every deck of the user with its due and new counts and the next due time still to come. */
export async function listDue(ctx: ServiceContext, actor: Actor): Promise<Due> {
  const now = ctx.clock.now().toISOString();
  const [decks, counts] = await Promise.all([listDeckHeadsOfUser(ctx.db, actor.userId), dueCountsOfUser(ctx.db, actor.userId, now)]);
  const byDeck = new Map(counts.map((c) => [c.deckId, c]));
  const total = { due: 0, new: 0 };
  const rows = decks.map((deck) => {
    const count = deckDueCount(deck, byDeck.get(deck.id));
    total.due += count.due;
    total.new += count.new;
    return { deckId: deck.id, title: deck.title, due: count.due, new: count.new, nextDueAt: count.nextDueAt };
  });
  return { decks: rows, total };
}

/**
 * The same counts as `listDue` for some of the actor's decks (a page of them, or the one being
 * studied), by the same index range narrowed to those decks. The caller passes decks it read as
 * the actor's and not in the trash; their card counts give the new cards.
 */
export async function dueCountsOfDecks(ctx: ServiceContext, actor: Actor, input: { decks: readonly CountedDeck[] }): Promise<Map<string, DeckDueCount>> {
  const now = ctx.clock.now().toISOString();
  const counts = await dueCountsOfUser(ctx.db, actor.userId, now, input.decks.map((d) => d.id));
  const byDeck = new Map(counts.map((c) => [c.deckId, c]));
  return new Map(input.decks.map((deck) => [deck.id, deckDueCount(deck, byDeck.get(deck.id))]));
}

/** Every card of a deck named in the path, in deck order, with the user's FSRS schedule of it. */
export async function getSchedule(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<Schedule> {
  const deck = await requireOwnedDeck(ctx.db, actor, input.deckId, 'path');
  const [cards, schedules] = await Promise.all([listCards(ctx.db, deck.id), listSchedulesOfDeck(ctx.db, actor.userId, deck.id)]);
  return {
    deckId: deck.id,
    cards: cards.map((card) => {
      const s = schedules.get(card.id);
      if (s === undefined) {
        return { cardId: card.id, state: 'new' as const, due: null, stability: null, difficulty: null, reps: 0, lapses: 0, lastReviewedAt: null };
      }
      return {
        cardId: card.id, state: STATES[s.state] ?? 'review', due: s.due, stability: s.stability, difficulty: s.difficulty,
        reps: s.reps, lapses: s.lapses, lastReviewedAt: s.lastReview,
      };
    }),
  };
}

function sessionSummary(s: SessionRecord): SessionSummary {
  return {
    id: s.id, deckId: s.deckId, status: s.status, relearn: s.relearn, startedAt: s.startedAt, updatedAt: s.updatedAt,
    completedAt: s.completedAt, deckVersion: s.deckVersion,
    progress: { answered: s.answered, remaining: s.cards.length - s.answered, total: s.cards.length }, stats: s.stats,
  };
}

export interface ListSessionsInput {
  deckId?: string | undefined;
  status?: SessionStatus | undefined;
  limit: number;
  token?: string | undefined;
}

/**
 * The user's sessions, newest first, by keyset pages. A deck named in the query that is not the
 * user's is DECK_NOT_FOUND; a token of another filter is BAD_REQUEST (the filter is signed in it).
 */
export async function listSessions(ctx: ServiceContext, actor: Actor, input: ListSessionsInput): Promise<SessionList> {
  if (input.deckId !== undefined) await requireOwnedDeck(ctx.db, actor, input.deckId, 'reference');
  const list = `reviews:${actor.userId}:${input.deckId ?? ''}:${input.status ?? ''}`;
  const position = continuationOf(ctx.secrets.cursorKey, input.token, list, ['string', 'string']);
  const after = position === null ? null : { startedAt: position[0] as string, id: position[1] as string };
  const rows = await listSessionsOfUser(ctx.db, actor.userId, { deckId: input.deckId, status: input.status, limit: input.limit + 1, after });
  const page = keysetPage(ctx.secrets.cursorKey, rows, input.limit, list, (s) => [s.startedAt, s.id]);
  return { sessions: page.rows.map(sessionSummary), nextToken: page.nextToken };
}
