// Review sessions: start or resume, read, answer (idempotent), complete with fixed statistics.
// Every write is one transaction ending in a compare-and-set on the session row, so racing
// answers, completions and new sessions leave one consistent outcome on either store.
import { ConcurrentUpdate, inTransaction, type BeforeCommit, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { requireOwnedDeck } from '../decks/deck-write.ts';
import { cardDto } from '../decks/decks.mappers.ts';
import { findCard } from '../decks/decks.repository.ts';
import type { CardDto } from '../decks/decks.schemas.ts';
import { lockUser } from '../users/users.repository.ts';
import {
  deckHasCard, findActiveSession, findAnswersOfCard, findSchedule, findSessionOfUser, insertAnswerIfAbsent, insertSession,
  listAnswers, listDeckCardIds, listDueTimes, saveSchedule, updateActiveSessionIfUnchanged,
  type AnswerRow, type SessionRecord,
} from './reviews.repository.ts';
import { MAX_RETURNS, type AnswerBody, type AnswerRecord, type AnswerResult, type Progress, type Session, type SessionStats } from './reviews.schemas.ts';
import { nextSchedule } from './scheduling.ts';

function progress(cards: readonly string[], answered: number): Progress {
  return { answered, remaining: cards.length - answered, total: cards.length };
}

function answerRecord(a: AnswerRow): AnswerRecord {
  return { cardId: a.cardId, rating: a.rating, durationMs: a.durationMs, answeredAt: a.answeredAt, due: a.due };
}

/**
 * The queue's places not answered yet, in queue order: a card's n-th place in `cards` is answered
 * once the card has n answers (a relearn return is a place of its own).
 */
export function unansweredPlaces(cards: readonly string[], answers: readonly { cardId: string }[]): string[] {
  const answered = new Map<string, number>();
  for (const a of answers) answered.set(a.cardId, (answered.get(a.cardId) ?? 0) + 1);
  const seen = new Map<string, number>();
  const out: string[] = [];
  for (const id of cards) {
    const place = seen.get(id) ?? 0;
    seen.set(id, place + 1);
    if (place >= (answered.get(id) ?? 0)) out.push(id);
  }
  return out;
}

/**
 * The next card to show: the first unanswered place whose card is still in the deck (a card
 * deleted since the session started is passed over); null when none is, or the session is over.
 */
async function nextCard(db: Db, session: SessionRecord, answers: readonly { cardId: string }[]): Promise<CardDto | null> {
  if (session.status !== 'active') return null;
  const tried = new Set<string>();
  for (const id of unansweredPlaces(session.cards, answers)) {
    if (tried.has(id)) continue;
    tried.add(id);
    const card = await findCard(db, session.deckId, id);
    if (card !== null) return cardDto(card);
  }
  return null;
}

async function sessionResponse(db: Db, session: SessionRecord, answers: AnswerRow[]): Promise<Session> {
  return sessionView(session, answers, await nextCard(db, session, answers));
}

function sessionView(session: SessionRecord, answers: AnswerRow[], next: CardDto | null): Session {
  return {
    id: session.id,
    deckId: session.deckId,
    status: session.status,
    startedAt: session.startedAt,
    updatedAt: session.updatedAt,
    completedAt: session.completedAt,
    deckVersion: session.deckVersion,
    relearn: session.relearn,
    cards: session.cards,
    answers: answers.map(answerRecord),
    // From the answers read, so the view agrees with itself even if an answer landed in between.
    progress: progress(session.cards, answers.length),
    stats: session.stats,
    next,
  };
}

async function requireSession(db: Db, actor: Actor, sessionId: string): Promise<SessionRecord> {
  const session = await findSessionOfUser(db, actor.userId, sessionId);
  // Another user's session is indistinguishable from a missing one.
  if (session === null) throw new AppError('SESSION_NOT_FOUND', `Review session ${sessionId} was not found`);
  return session;
}

function notActive(session: SessionRecord): AppError {
  return new AppError('SESSION_NOT_ACTIVE', `Review session ${session.id} is ${session.status}`, { status: session.status });
}

/** Due cards (earliest due first, then deck order), then never-reviewed cards in deck order. */
async function buildQueue(db: Db, userId: string, deckId: string, now: string): Promise<string[]> {
  const cardIds = await listDeckCardIds(db, deckId);
  const dueTimes = await listDueTimes(db, userId, deckId);
  const due: { id: string; due: string; position: number }[] = [];
  const fresh: string[] = [];
  cardIds.forEach((id, position) => {
    const at = dueTimes.get(id);
    if (at === undefined) fresh.push(id);
    else if (at <= now) due.push({ id, due: at, position });
  });
  due.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : a.position - b.position));
  return [...due.map((d) => d.id), ...fresh];
}

export interface StartSessionInput {
  deckId: string;
  resume: boolean;
  /** Default false (see StartSessionBodySchema). */
  relearn?: boolean;
}

export async function startSession(ctx: ServiceContext, actor: Actor, input: StartSessionInput, beforeCommit?: BeforeCommit<Session>): Promise<Session> {
  const { deckId, resume } = input;
  return inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, actor, deckId, 'reference');
    // Serialises starts of one user, so two racing starts never leave two active sessions.
    await lockUser(trx, actor.userId);
    const now = ctx.clock.now().toISOString();
    const active = await findActiveSession(trx, actor.userId, deck.id);
    let started: Session | null = null;
    if (active !== null) {
      if (resume) started = await sessionResponse(trx, active, await listAnswers(trx, active.id));
      else if (!(await updateActiveSessionIfUnchanged(trx, active.id, active.answered, { status: 'abandoned', updatedAt: now }))) {
        throw new ConcurrentUpdate();
      }
    }
    if (started === null) {
      const session: SessionRecord = {
        id: newId('rev'),
        userId: actor.userId,
        deckId: deck.id,
        status: 'active',
        deckVersion: deck.updatedAt,
        cards: await buildQueue(trx, actor.userId, deck.id, now),
        relearn: input.relearn === true,
        answered: 0,
        stats: null,
        startedAt: now,
        updatedAt: now,
        completedAt: null,
      };
      await insertSession(trx, session);
      started = await sessionResponse(trx, session, []);
    }
    await beforeCommit?.(trx, started);
    return started;
  });
}

/**
 * The user's active session of a deck, or null: a read that starts nothing (the learning view
 * asks this first, so a view of a deck under review is no write).
 */
export async function findActiveSessionOfDeck(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<Session | null> {
  const active = await findActiveSession(ctx.db, actor.userId, input.deckId);
  return active === null ? null : sessionResponse(ctx.db, active, await listAnswers(ctx.db, active.id));
}

export async function getSession(ctx: ServiceContext, actor: Actor, input: { sessionId: string }): Promise<Session> {
  const session = await requireSession(ctx.db, actor, input.sessionId);
  return sessionResponse(ctx.db, session, await listAnswers(ctx.db, session.id));
}

/**
 * One answer per place of a card in the queue. A card with a place not answered yet (its first, or
 * in a relearn session a pending return) takes the answer there; otherwise the same rating as its
 * last answer returns that stored record (whatever the session's status) and a different rating is
 * ANSWER_CONFLICT (once a session is over, no return is pending). In a relearn session, `again` on a card that has come back fewer than 3 times
 * appends it to the queue once more.
 */
export async function answerCard(ctx: ServiceContext, actor: Actor, input: { sessionId: string } & AnswerBody): Promise<AnswerResult> {
  const { sessionId, ...body } = input;
  return inTransaction(ctx.db, async (trx) => {
    // The answers before the session: an answer and its count commit together, so a session read
    // after the answers counts them (PostgreSQL reads each statement afresh).
    const existing = await findAnswersOfCard(trx, sessionId, body.cardId);
    const session = await requireSession(trx, actor, sessionId);
    const places = session.cards.filter((id) => id === body.cardId).length;
    const last = existing.at(-1);
    // A session that is over has no pending return: the same rating replays the card's last answer.
    const pending = session.status === 'active' && existing.length < places;
    if (!pending && last !== undefined) {
      if (last.rating === body.rating) {
        const answers = await listAnswers(trx, session.id);
        return { answer: answerRecord(last), progress: progress(session.cards, session.answered), nextDue: last.due, next: await nextCard(trx, session, answers) };
      }
      if (session.status !== 'active') throw notActive(session);
      throw new AppError('ANSWER_CONFLICT', `Card ${body.cardId} was already answered "${last.rating}" in this session`, {
        cardId: body.cardId, rating: last.rating,
      });
    }
    if (session.status !== 'active') throw notActive(session);
    if (places === 0) {
      throw new AppError('CARD_NOT_FOUND', `Card ${body.cardId} is not in review session ${session.id}`, { cardId: body.cardId });
    }
    if (!(await deckHasCard(trx, session.deckId, body.cardId))) {
      // Still listed in the session's queue, which is fixed when it starts: say why it cannot be answered.
      throw new AppError('CARD_NOT_FOUND', `Card ${body.cardId} was deleted from deck ${session.deckId} after session ${session.id} started; answer the session's next card`, { cardId: body.cardId });
    }
    const now = ctx.clock.now();
    const schedule = nextSchedule(await findSchedule(trx, actor.userId, body.cardId), body.rating, now);
    const pass = existing.length;
    const answer: AnswerRow = {
      cardId: body.cardId,
      pass,
      seq: session.answered + 1,
      rating: body.rating,
      durationMs: body.durationMs ?? null,
      answeredAt: now.toISOString(),
      due: schedule.due,
    };
    // A duplicate that slipped past findAnswersOfCard (a concurrent transaction on PostgreSQL) hits
    // the unique key; the retry then finds the stored answer.
    if (!(await insertAnswerIfAbsent(trx, session.id, answer))) throw new ConcurrentUpdate();
    await saveSchedule(trx, actor.userId, session.deckId, body.cardId, schedule);
    const answered = session.answered + 1;
    const returns = session.relearn && body.rating === 'again' && pass < MAX_RETURNS;
    const cards = returns ? [...session.cards, body.cardId] : session.cards;
    const changes = { answered, updatedAt: answer.answeredAt, ...(returns ? { cards } : {}) };
    if (!(await updateActiveSessionIfUnchanged(trx, session.id, session.answered, changes))) throw new ConcurrentUpdate();
    const after = { ...session, cards, answered };
    const next = await nextCard(trx, after, await listAnswers(trx, session.id));
    return { answer: answerRecord(answer), progress: progress(cards, answered), nextDue: answer.due, next };
  });
}

function computeStats(session: SessionRecord, answers: AnswerRow[], completedAt: string): SessionStats {
  const ratings = { again: 0, hard: 0, good: 0, easy: 0 };
  let durationMs = 0;
  let timed = 0;
  for (const a of answers) {
    ratings[a.rating] += 1;
    if (a.durationMs !== null) {
      durationMs += a.durationMs;
      timed += 1;
    }
  }
  const answered = answers.length;
  return {
    total: session.cards.length,
    answered,
    skipped: session.cards.length - answered,
    ratings,
    accuracy: answered === 0 ? null : Math.round(((answered - ratings.again) / answered) * 10_000) / 10_000,
    durationMs,
    averageMsPerCard: timed === 0 ? null : Math.round(durationMs / timed),
    startedAt: session.startedAt,
    completedAt,
    // One entry per card, in the order cards were first answered, with the due time of its last answer.
    nextDue: [...new Map(answers.map((a) => [a.cardId, a.due])).entries()].map(([cardId, due]) => ({ cardId, due })),
  };
}

/** Fixes the statistics once; completing again returns the same session and stats. */
export async function completeSession(ctx: ServiceContext, actor: Actor, input: { sessionId: string }): Promise<Session> {
  return inTransaction(ctx.db, async (trx) => {
    const session = await requireSession(trx, actor, input.sessionId);
    const answers = await listAnswers(trx, session.id);
    if (session.status === 'completed') return sessionView(session, answers, null);
    if (session.status !== 'active') throw notActive(session);
    // An answer committed between the two reads (PostgreSQL reads each statement afresh): retry.
    if (answers.length !== session.answered) throw new ConcurrentUpdate();
    const completedAt = ctx.clock.now().toISOString();
    const stats = computeStats(session, answers, completedAt);
    // Fails if an answer landed after we read the answers: the retry counts it.
    if (!(await updateActiveSessionIfUnchanged(trx, session.id, session.answered, { status: 'completed', stats, completedAt, updatedAt: completedAt }))) {
      throw new ConcurrentUpdate();
    }
    return sessionView({ ...session, status: 'completed', stats, completedAt, updatedAt: completedAt }, answers, null);
  });
}
