// Review sessions: start or resume, read, answer (idempotent), complete with fixed statistics.
// Every write is one transaction ending in a compare-and-set on the session row, so racing
// answers, completions and new sessions leave one consistent outcome on either store.
import { ConcurrentUpdate, inTransaction, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Actor } from '../identity/principal.ts';
import { requireOwnedDeck } from '../decks/deck-write.ts';
import { lockUser } from '../users/users.repository.ts';
import {
  deckHasCard, findActiveSession, findAnswer, findSchedule, findSessionOfUser, insertAnswerIfAbsent, insertSession,
  listAnswers, listDeckCardIds, listDueTimes, saveSchedule, updateActiveSessionIfUnchanged,
  type AnswerRow, type SessionRecord,
} from './reviews.repository.ts';
import type { AnswerBody, AnswerRecord, AnswerResult, Progress, Session, SessionStats } from './reviews.schemas.ts';
import { nextSchedule } from './scheduling.ts';

function progress(cards: readonly string[], answered: number): Progress {
  return { answered, remaining: cards.length - answered, total: cards.length };
}

function answerRecord(a: AnswerRow): AnswerRecord {
  return { cardId: a.cardId, rating: a.rating, durationMs: a.durationMs, answeredAt: a.answeredAt, due: a.due };
}

function sessionView(session: SessionRecord, answers: AnswerRow[]): Session {
  return {
    id: session.id,
    deckId: session.deckId,
    status: session.status,
    startedAt: session.startedAt,
    updatedAt: session.updatedAt,
    completedAt: session.completedAt,
    deckVersion: session.deckVersion,
    cards: session.cards,
    answers: answers.map(answerRecord),
    // From the answers read, so the view agrees with itself even if an answer landed in between.
    progress: progress(session.cards, answers.length),
    stats: session.stats,
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

export async function startSession(ctx: ServiceContext, actor: Actor, input: { deckId: string; resume: boolean }): Promise<Session> {
  const { deckId, resume } = input;
  return inTransaction(ctx.db, async (trx) => {
    const deck = await requireOwnedDeck(trx, actor, deckId, 'reference');
    // Serialises starts of one user, so two racing starts never leave two active sessions.
    await lockUser(trx, actor.userId);
    const now = ctx.clock.now().toISOString();
    const active = await findActiveSession(trx, actor.userId, deck.id);
    if (active !== null) {
      if (resume) return sessionView(active, await listAnswers(trx, active.id));
      const abandoned = await updateActiveSessionIfUnchanged(trx, active.id, active.answered, { status: 'abandoned', updatedAt: now });
      if (!abandoned) throw new ConcurrentUpdate();
    }
    const session: SessionRecord = {
      id: newId('rev'),
      userId: actor.userId,
      deckId: deck.id,
      status: 'active',
      deckVersion: deck.updatedAt,
      cards: await buildQueue(trx, actor.userId, deck.id, now),
      answered: 0,
      stats: null,
      startedAt: now,
      updatedAt: now,
      completedAt: null,
    };
    await insertSession(trx, session);
    return sessionView(session, []);
  });
}

/**
 * The user's active session of a deck, or null: a read that starts nothing (the learning view
 * asks this first, so a view of a deck under review is no write).
 */
export async function findActiveSessionOfDeck(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<Session | null> {
  const active = await findActiveSession(ctx.db, actor.userId, input.deckId);
  return active === null ? null : sessionView(active, await listAnswers(ctx.db, active.id));
}

export async function getSession(ctx: ServiceContext, actor: Actor, input: { sessionId: string }): Promise<Session> {
  const session = await requireSession(ctx.db, actor, input.sessionId);
  return sessionView(session, await listAnswers(ctx.db, session.id));
}

/**
 * One answer per card per session. The same card and rating again returns the stored record
 * (whatever the session's status); a different rating is ANSWER_CONFLICT.
 */
export async function answerCard(ctx: ServiceContext, actor: Actor, input: { sessionId: string } & AnswerBody): Promise<AnswerResult> {
  const { sessionId, ...body } = input;
  return inTransaction(ctx.db, async (trx) => {
    // The answer before the session: an answer and its count commit together, so a session read
    // after the answer counts it (PostgreSQL reads each statement afresh).
    const existing = await findAnswer(trx, sessionId, body.cardId);
    const session = await requireSession(trx, actor, sessionId);
    if (existing !== null && existing.rating === body.rating) {
      return { answer: answerRecord(existing), progress: progress(session.cards, session.answered), nextDue: existing.due };
    }
    if (session.status !== 'active') throw notActive(session);
    if (existing !== null) {
      throw new AppError('ANSWER_CONFLICT', `Card ${body.cardId} was already answered "${existing.rating}" in this session`, {
        cardId: body.cardId, rating: existing.rating,
      });
    }
    if (!session.cards.includes(body.cardId) || !(await deckHasCard(trx, session.deckId, body.cardId))) {
      throw new AppError('CARD_NOT_FOUND', `Card ${body.cardId} is not in review session ${session.id}`, { cardId: body.cardId });
    }
    const now = ctx.clock.now();
    const schedule = nextSchedule(await findSchedule(trx, actor.userId, body.cardId), body.rating, now);
    const answer: AnswerRow = {
      cardId: body.cardId,
      seq: session.answered + 1,
      rating: body.rating,
      durationMs: body.durationMs ?? null,
      answeredAt: now.toISOString(),
      due: schedule.due,
    };
    // A duplicate that slipped past findAnswer (a concurrent transaction on PostgreSQL) hits the
    // unique key; the retry then finds the stored answer.
    if (!(await insertAnswerIfAbsent(trx, session.id, answer))) throw new ConcurrentUpdate();
    await saveSchedule(trx, actor.userId, body.cardId, schedule);
    const answered = session.answered + 1;
    if (!(await updateActiveSessionIfUnchanged(trx, session.id, session.answered, { answered, updatedAt: answer.answeredAt }))) {
      throw new ConcurrentUpdate();
    }
    return { answer: answerRecord(answer), progress: progress(session.cards, answered), nextDue: answer.due };
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
    nextDue: answers.map((a) => ({ cardId: a.cardId, due: a.due })),
  };
}

/** Fixes the statistics once; completing again returns the same session and stats. */
export async function completeSession(ctx: ServiceContext, actor: Actor, input: { sessionId: string }): Promise<Session> {
  return inTransaction(ctx.db, async (trx) => {
    const session = await requireSession(trx, actor, input.sessionId);
    const answers = await listAnswers(trx, session.id);
    if (session.status === 'completed') return sessionView(session, answers);
    if (session.status !== 'active') throw notActive(session);
    // An answer committed between the two reads (PostgreSQL reads each statement afresh): retry.
    if (answers.length !== session.answered) throw new ConcurrentUpdate();
    const completedAt = ctx.clock.now().toISOString();
    const stats = computeStats(session, answers, completedAt);
    // Fails if an answer landed after we read the answers: the retry counts it.
    if (!(await updateActiveSessionIfUnchanged(trx, session.id, session.answered, { status: 'completed', stats, completedAt, updatedAt: completedAt }))) {
      throw new ConcurrentUpdate();
    }
    return sessionView({ ...session, status: 'completed', stats, completedAt, updatedAt: completedAt }, answers);
  });
}
