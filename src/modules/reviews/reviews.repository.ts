// SQL for review sessions, their answers and the per-user card schedules.
import type { Db } from '../../db/database.ts';
import type { ReviewRating, SessionStats, SessionStatus } from './reviews.schemas.ts';
import type { CardSchedule } from './scheduling.ts';

export interface SessionRecord {
  id: string;
  userId: string;
  deckId: string;
  status: SessionStatus;
  deckVersion: string;
  /** The queue; in a relearn session a card rated `again` is appended again (up to 3 returns). */
  cards: string[];
  relearn: boolean;
  answered: number;
  stats: SessionStats | null;
  startedAt: string;
  updatedAt: string;
  completedAt: string | null;
}

export interface AnswerRow {
  cardId: string;
  /** 0: the card's place in the queue; 1 to 3: its relearn returns. */
  pass: number;
  seq: number;
  rating: ReviewRating;
  durationMs: number | null;
  answeredAt: string;
  due: string;
}

const SESSION_COLUMNS = ['id', 'user_id', 'deck_id', 'status', 'deck_version', 'cards', 'relearn', 'answered', 'stats', 'started_at', 'updated_at', 'completed_at'] as const;
const ANSWER_COLUMNS = ['card_id', 'pass', 'seq', 'rating', 'duration_ms', 'answered_at', 'due'] as const;

type SessionRow = {
  id: string; user_id: string; deck_id: string; status: string; deck_version: string; cards: string; relearn: number | string;
  answered: number | string; stats: string | null; started_at: string; updated_at: string; completed_at: string | null;
};
type AnswerDbRow = { card_id: string; pass: number | string; seq: number | string; rating: string; duration_ms: number | string | null; answered_at: string; due: string };

function toSession(row: SessionRow): SessionRecord {
  return {
    id: row.id,
    userId: row.user_id,
    deckId: row.deck_id,
    status: row.status as SessionStatus,
    deckVersion: row.deck_version,
    cards: JSON.parse(row.cards) as string[],
    relearn: Number(row.relearn) === 1,
    answered: Number(row.answered),
    stats: row.stats === null ? null : (JSON.parse(row.stats) as SessionStats),
    startedAt: row.started_at,
    updatedAt: row.updated_at,
    completedAt: row.completed_at,
  };
}

function toAnswer(row: AnswerDbRow): AnswerRow {
  return {
    cardId: row.card_id,
    pass: Number(row.pass),
    seq: Number(row.seq),
    rating: row.rating as ReviewRating,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    answeredAt: row.answered_at,
    due: row.due,
  };
}

export async function insertSession(db: Db, session: SessionRecord): Promise<void> {
  await db.insertInto('review_sessions').values({
    id: session.id, user_id: session.userId, deck_id: session.deckId, status: session.status,
    deck_version: session.deckVersion, cards: JSON.stringify(session.cards), relearn: session.relearn ? 1 : 0, answered: session.answered,
    stats: session.stats === null ? null : JSON.stringify(session.stats),
    started_at: session.startedAt, updated_at: session.updatedAt, completed_at: session.completedAt,
  }).execute();
}

/** The session if it exists and belongs to the user. */
export async function findSessionOfUser(db: Db, userId: string, sessionId: string): Promise<SessionRecord | null> {
  const row = await db.selectFrom('review_sessions').select(SESSION_COLUMNS)
    .where('id', '=', sessionId).where('user_id', '=', userId).executeTakeFirst();
  return row ? toSession(row) : null;
}

export async function findActiveSession(db: Db, userId: string, deckId: string): Promise<SessionRecord | null> {
  const row = await db.selectFrom('review_sessions').select(SESSION_COLUMNS)
    .where('user_id', '=', userId).where('deck_id', '=', deckId).where('status', '=', 'active').executeTakeFirst();
  return row ? toSession(row) : null;
}

/**
 * Writes the session only if it is still active with `expectedAnswered` answers (compare-and-set):
 * an answer and a completion that race cannot both win, on either store.
 */
export async function updateActiveSessionIfUnchanged(
  db: Db, sessionId: string, expectedAnswered: number,
  changes: { status?: SessionStatus; answered?: number; cards?: readonly string[]; stats?: SessionStats; updatedAt: string; completedAt?: string },
): Promise<boolean> {
  const set: Record<string, unknown> = { updated_at: changes.updatedAt };
  if (changes.cards !== undefined) set.cards = JSON.stringify(changes.cards);
  if (changes.status !== undefined) set.status = changes.status;
  if (changes.answered !== undefined) set.answered = changes.answered;
  if (changes.stats !== undefined) set.stats = JSON.stringify(changes.stats);
  if (changes.completedAt !== undefined) set.completed_at = changes.completedAt;
  const result = await db.updateTable('review_sessions').set(set)
    .where('id', '=', sessionId).where('status', '=', 'active').where('answered', '=', expectedAnswered)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function listAnswers(db: Db, sessionId: string): Promise<AnswerRow[]> {
  const rows = await db.selectFrom('review_answers').select(ANSWER_COLUMNS).where('session_id', '=', sessionId).orderBy('seq').execute();
  return rows.map(toAnswer);
}

/** The answers of one card in a session, one per pass, in pass order. */
export async function findAnswersOfCard(db: Db, sessionId: string, cardId: string): Promise<AnswerRow[]> {
  const rows = await db.selectFrom('review_answers').select(ANSWER_COLUMNS)
    .where('session_id', '=', sessionId).where('card_id', '=', cardId).orderBy('pass').execute();
  return rows.map(toAnswer);
}

/** False when the card already has an answer for this pass in this session (the unique key decided). */
export async function insertAnswerIfAbsent(db: Db, sessionId: string, answer: AnswerRow): Promise<boolean> {
  const result = await db.insertInto('review_answers').values({
    session_id: sessionId, card_id: answer.cardId, pass: answer.pass, seq: answer.seq, rating: answer.rating,
    duration_ms: answer.durationMs, answered_at: answer.answeredAt, due: answer.due,
  }).onConflict((oc) => oc.columns(['session_id', 'card_id', 'pass']).doNothing()).executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

/** Card ids of a deck in deck order. */
export async function listDeckCardIds(db: Db, deckId: string): Promise<string[]> {
  const rows = await db.selectFrom('cards').select('id').where('deck_id', '=', deckId).orderBy('position').execute();
  return rows.map((r) => r.id);
}

export async function deckHasCard(db: Db, deckId: string, cardId: string): Promise<boolean> {
  const row = await db.selectFrom('cards').select('id').where('id', '=', cardId).where('deck_id', '=', deckId).executeTakeFirst();
  return row !== undefined;
}

/** Due time of every card of the deck the user has a schedule for. */
export async function listDueTimes(db: Db, userId: string, deckId: string): Promise<Map<string, string>> {
  const rows = await db.selectFrom('card_schedules')
    .innerJoin('cards', 'cards.id', 'card_schedules.card_id')
    .select(['card_schedules.card_id', 'card_schedules.due'])
    .where('card_schedules.user_id', '=', userId).where('cards.deck_id', '=', deckId)
    .execute();
  return new Map(rows.map((r) => [r.card_id, r.due]));
}

type ScheduleRow = {
  due: string; stability: number | string; difficulty: number | string; elapsed_days: number | string; scheduled_days: number | string;
  learning_steps: number | string; reps: number | string; lapses: number | string; state: number | string; last_review: string | null;
};

function toSchedule(row: ScheduleRow): CardSchedule {
  return {
    due: row.due,
    stability: Number(row.stability),
    difficulty: Number(row.difficulty),
    elapsedDays: Number(row.elapsed_days),
    scheduledDays: Number(row.scheduled_days),
    learningSteps: Number(row.learning_steps),
    reps: Number(row.reps),
    lapses: Number(row.lapses),
    state: Number(row.state),
    lastReview: row.last_review,
  };
}

export async function findSchedule(db: Db, userId: string, cardId: string): Promise<CardSchedule | null> {
  const row = await db.selectFrom('card_schedules').selectAll().where('user_id', '=', userId).where('card_id', '=', cardId).executeTakeFirst();
  return row ? toSchedule(row) : null;
}

/** The user's schedule of every card of a deck that has one. */
export async function listSchedulesOfDeck(db: Db, userId: string, deckId: string): Promise<Map<string, CardSchedule>> {
  const rows = await db.selectFrom('card_schedules').selectAll().where('user_id', '=', userId).where('deck_id', '=', deckId).execute();
  return new Map(rows.map((r) => [r.card_id, toSchedule(r)]));
}

export interface DeckDueCounts {
  deckId: string;
  /** Cards with a schedule (reviewed at least once). */
  reviewed: number;
  /** Cards whose due time has passed. */
  due: number;
  /** The earliest due time still to come, if any. */
  nextDue: string | null;
}

/**
 * Per deck, the user's reviewed, due and next-due figures: one range of the (user, deck, due)
 * index, whatever the number of decks; only the decks `deckIds` when given (a page of them).
 */
export async function dueCountsOfUser(db: Db, userId: string, now: string, deckIds?: readonly string[]): Promise<DeckDueCounts[]> {
  if (deckIds?.length === 0) return [];
  let query = db.selectFrom('card_schedules')
    .select((eb) => [
      'deck_id',
      eb.fn.countAll().as('reviewed'),
      eb.fn.sum(eb.case().when('due', '<=', now).then(1).else(0).end()).as('due'),
      eb.fn.min(eb.case().when('due', '>', now).then(eb.ref('due')).end()).as('next_due'),
    ])
    .where('user_id', '=', userId).where('deck_id', 'is not', null);
  if (deckIds !== undefined) query = query.where('deck_id', 'in', deckIds);
  const rows = await query.groupBy('deck_id').execute();
  // Grouped rows have at least one schedule each: the sum is never null.
  return rows.map((r) => ({ deckId: r.deck_id as string, reviewed: Number(r.reviewed), due: Number(r.due), nextDue: r.next_due }));
}

export interface SessionListFilter {
  deckId?: string | undefined;
  status?: SessionStatus | undefined;
  limit: number;
  /** The keyset position after which the page starts (newest first). */
  after: { startedAt: string; id: string } | null;
}

/** The user's sessions, newest first (startedAt, then id, descending). */
export async function listSessionsOfUser(db: Db, userId: string, filter: SessionListFilter): Promise<SessionRecord[]> {
  let query = db.selectFrom('review_sessions').select(SESSION_COLUMNS).where('user_id', '=', userId);
  if (filter.deckId !== undefined) query = query.where('deck_id', '=', filter.deckId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  const { after } = filter;
  if (after !== null) query = query.where((eb) => eb(eb.refTuple('started_at', 'id'), '<', eb.tuple(after.startedAt, after.id)));
  const rows = await query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
  return rows.map(toSession);
}

export async function saveSchedule(db: Db, userId: string, deckId: string, cardId: string, s: CardSchedule): Promise<void> {
  const fields = {
    due: s.due, stability: s.stability, difficulty: s.difficulty, elapsed_days: s.elapsedDays,
    scheduled_days: s.scheduledDays, learning_steps: s.learningSteps, reps: s.reps, lapses: s.lapses,
    state: s.state, last_review: s.lastReview,
  };
  await db.insertInto('card_schedules').values({ user_id: userId, card_id: cardId, deck_id: deckId, ...fields })
    .onConflict((oc) => oc.columns(['user_id', 'card_id']).doUpdateSet(fields))
    .execute();
}

/** Forgets the schedules of cards that left a deck (an update import dropped them). */
export async function deleteSchedules(db: Db, userId: string, cardIds: readonly string[]): Promise<void> {
  for (let i = 0; i < cardIds.length; i += 500) {
    await db.deleteFrom('card_schedules').where('user_id', '=', userId).where('card_id', 'in', cardIds.slice(i, i + 500)).execute();
  }
}

/** Forgets every user's schedule of a card that was deleted. */
export async function deleteSchedulesOfCard(db: Db, cardId: string): Promise<void> {
  await db.deleteFrom('card_schedules').where('card_id', '=', cardId).execute();
}
