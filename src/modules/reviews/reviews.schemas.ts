// Review sessions: request and response shapes, with the examples the OpenAPI document shows.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PageQuery, PathId } from '../../schemas/common.ts';
import { CardDtoSchema, MAX_CARDS_PER_DECK } from '../decks/decks.schemas.ts';

export const RATINGS = ['again', 'hard', 'good', 'easy'] as const;
export type ReviewRating = (typeof RATINGS)[number];

export const SESSION_STATUSES = ['active', 'completed', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** How many times a card rated `again` comes back in a relearn session. */
export const MAX_RETURNS = 3;

const NEXT_DESCRIPTION = 'The next unanswered card of the queue (the card itself, so a quiz loop needs no second call); null when none is left or the session is not active';

const EX_SESSION = 'rev_7Hq2LmX9pQ4rT1vZ0aBc';
const EX_DECK = 'dck_3kT9sW2nLq8vX5mR1yPe';
const EX_CARD_1 = 'crd_A1b2C3d4E5f6G7h8I9j0';
const EX_CARD_2 = 'crd_K1l2M3n4O5p6Q7r8S9t0';
const EX_STARTED = '2026-03-02T09:00:00.000Z';
const EX_ANSWERED = '2026-03-02T09:00:12.000Z';
const EX_DUE = '2026-03-02T09:10:12.000Z';
const EX_COMPLETED = '2026-03-02T09:01:30.000Z';

export const IdParams = Type.Object({ sessionId: PathId('A review session id (`rev_...`)') });

export const StartSessionBodySchema = Type.Object({
  deckId: Type.String({ minLength: 1, maxLength: 100, description: 'A deck of the token\'s user; any other deck is 404 DECK_NOT_FOUND' }),
  resume: Type.Optional(Type.Boolean({
    description: 'true: return the active session of this deck if there is one, else start one. false or absent: always start a new session; an active one of this deck becomes `abandoned`.',
  })),
  relearn: Type.Optional(Type.Boolean({
    description: `Default false. true: a card rated \`again\` comes back at the end of the queue (its id appended to \`cards\`), up to ${MAX_RETURNS} times a session, as Anki's learning steps do. Ignored when \`resume\` returns an active session.`,
  })),
}, { additionalProperties: false, examples: [{ deckId: EX_DECK, resume: true, relearn: true }] });

export const AnswerBodySchema = Type.Object({
  cardId: Type.String({ minLength: 1, maxLength: 100, description: 'A card in the session queue (`cards`)' }),
  rating: Type.Enum([...RATINGS], { description: 'How well the card was recalled' }),
  durationMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000, description: 'Time spent on the card, in milliseconds' })),
}, { additionalProperties: false, examples: [{ cardId: EX_CARD_1, rating: 'good', durationMs: 4200 }] });

export const ProgressSchema = Type.Object({
  answered: Type.Integer({ minimum: 0 }),
  remaining: Type.Integer({ minimum: 0, description: 'Cards of the queue not answered yet' }),
  total: Type.Integer({ minimum: 0, description: 'Length of the queue' }),
}, { additionalProperties: false, examples: [{ answered: 1, remaining: 1, total: 2 }] });

export const AnswerRecordSchema = Type.Object({
  cardId: Type.String(),
  rating: Type.Enum([...RATINGS]),
  durationMs: Nullable(Type.Integer({ minimum: 0 })),
  answeredAt: DateTime,
  due: Type.String({ format: 'date-time', description: 'When the card is due next, as scheduled by this answer (FSRS)' }),
}, {
  additionalProperties: false,
  examples: [{ cardId: EX_CARD_1, rating: 'good', durationMs: 4200, answeredAt: EX_ANSWERED, due: EX_DUE }],
});

export const AnswerResultSchema = Type.Object({
  answer: AnswerRecordSchema,
  progress: ProgressSchema,
  nextDue: Type.String({ format: 'date-time', description: "The card's next due time (same as `answer.due`)" }),
  next: Type.Union([CardDtoSchema, Type.Null()], { description: NEXT_DESCRIPTION }),
}, {
  additionalProperties: false,
  description: 'The recorded answer. Posting the same card and rating again returns this stored record unchanged (durationMs included).',
  examples: [{
    answer: { cardId: EX_CARD_1, rating: 'good', durationMs: 4200, answeredAt: EX_ANSWERED, due: EX_DUE },
    progress: { answered: 1, remaining: 1, total: 2 },
    nextDue: EX_DUE,
    next: { id: EX_CARD_2, order: 1, front: 'What does FSRS schedule?', back: 'The next review of each card', oneSided: false, extras: { frontType: 'markdown', backType: 'markdown' } },
  }],
});

const statsExample = {
  total: 2,
  answered: 1,
  skipped: 1,
  ratings: { again: 0, hard: 0, good: 1, easy: 0 },
  accuracy: 1,
  durationMs: 4200,
  averageMsPerCard: 4200,
  startedAt: EX_STARTED,
  completedAt: EX_COMPLETED,
  nextDue: [{ cardId: EX_CARD_1, due: EX_DUE }],
};

export const SessionStatsSchema = Type.Object({
  total: Type.Integer({ minimum: 0, description: 'Length of the queue (relearn returns included)' }),
  answered: Type.Integer({ minimum: 0 }),
  skipped: Type.Integer({ minimum: 0, description: 'Queued cards left unanswered: total - answered' }),
  ratings: Type.Object({
    again: Type.Integer({ minimum: 0 }),
    hard: Type.Integer({ minimum: 0 }),
    good: Type.Integer({ minimum: 0 }),
    easy: Type.Integer({ minimum: 0 }),
  }, { additionalProperties: false, description: 'Answers per rating' }),
  accuracy: Nullable(Type.Number({ minimum: 0, maximum: 1, description: 'Share of answers not rated `again`, rounded to 4 decimals; null when nothing was answered' })),
  durationMs: Type.Integer({ minimum: 0, description: 'Sum of the answers\' durationMs (answers without one count 0)' }),
  averageMsPerCard: Nullable(Type.Integer({ minimum: 0, description: 'durationMs divided by the number of answers that carry a durationMs, rounded; null when none does' })),
  startedAt: DateTime,
  completedAt: DateTime,
  nextDue: Type.Array(Type.Object({ cardId: Type.String(), due: DateTime }, { additionalProperties: false }), {
    description: 'Next due time of each answered card (as its last answer set it), in the order the cards were first answered',
  }),
}, { additionalProperties: false, description: 'Authoritative statistics, fixed when the session is completed', examples: [statsExample] });

export const SessionSchema = Type.Object({
  id: Type.String({ description: 'rev_...' }),
  deckId: Type.String(),
  status: Type.Enum([...SESSION_STATUSES], {
    description: '`active` until completed (POST .../complete) or abandoned (a new session started for the same deck without `resume`)',
  }),
  startedAt: DateTime,
  updatedAt: DateTime,
  completedAt: Nullable(DateTime),
  deckVersion: Type.String({ format: 'date-time', description: 'The deck `version` when the session started' }),
  relearn: Type.Boolean({ description: 'Whether a card rated `again` comes back at the end of the queue (up to 3 times)' }),
  cards: Type.Array(Type.String(), {
    maxItems: MAX_CARDS_PER_DECK * (1 + MAX_RETURNS),
    description: 'The queue, fixed at start: cards due now (earliest due first), then new cards (never reviewed) in deck order. Reviewed cards not yet due are not queued; the queue may be empty. In a relearn session a card rated `again` is appended again.',
  }),
  answers: Type.Array(AnswerRecordSchema, { description: 'Answers in the order they were recorded' }),
  progress: ProgressSchema,
  stats: Type.Union([SessionStatsSchema, Type.Null()], { description: 'null until the session is completed; then the same object POST .../complete returned' }),
  next: Type.Union([CardDtoSchema, Type.Null()], { description: NEXT_DESCRIPTION }),
  idempotencyKey: Type.Optional(Type.String({ description: 'The Idempotency-Key of POST /reviews, echoed' })),
}, {
  additionalProperties: false,
  description: 'A review session: its fixed queue, the answers so far, progress, and the statistics once completed',
  examples: [{
    id: EX_SESSION,
    deckId: EX_DECK,
    status: 'completed',
    startedAt: EX_STARTED,
    updatedAt: EX_COMPLETED,
    completedAt: EX_COMPLETED,
    deckVersion: '2026-03-01T18:22:05.123Z',
    relearn: false,
    cards: [EX_CARD_1, EX_CARD_2],
    answers: [{ cardId: EX_CARD_1, rating: 'good', durationMs: 4200, answeredAt: EX_ANSWERED, due: EX_DUE }],
    progress: { answered: 1, remaining: 1, total: 2 },
    stats: statsExample,
    next: null,
  }],
});

const StateSchema = Type.Enum(['new', 'learning', 'review', 'relearning'], { description: 'FSRS state; `new`: never reviewed' });

export const DueSchema = Type.Object({
  decks: Type.Array(Type.Object({
    deckId: Type.String(),
    title: Type.String(),
    due: Type.Integer({ minimum: 0, description: 'Reviewed cards whose FSRS due time has passed' }),
    new: Type.Integer({ minimum: 0, description: 'Cards never reviewed' }),
    nextDueAt: Nullable(Type.String({ format: 'date-time', description: 'The earliest due time still to come; null when no reviewed card is due later' })),
  }, { additionalProperties: false }), { description: "Every deck of the user, most recently updated first, as GET /decks orders them" }),
  total: Type.Object({ due: Type.Integer({ minimum: 0 }), new: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
}, { additionalProperties: false, description: "What is due now in each of the user's decks" });

export const ScheduleSchema = Type.Object({
  deckId: Type.String(),
  cards: Type.Array(Type.Object({
    cardId: Type.String(),
    state: StateSchema,
    due: Nullable(Type.String({ format: 'date-time', description: 'null for a new card' })),
    stability: Nullable(Type.Number({ minimum: 0 })),
    difficulty: Nullable(Type.Number({ minimum: 0 })),
    reps: Type.Integer({ minimum: 0 }),
    lapses: Type.Integer({ minimum: 0 }),
    lastReviewedAt: Nullable(DateTime),
  }, { additionalProperties: false }), { maxItems: MAX_CARDS_PER_DECK, description: "Every card of the deck, in deck order, with the user's FSRS schedule" }),
}, { additionalProperties: false });

export const SessionSummarySchema = Type.Object({
  id: Type.String(),
  deckId: Type.String(),
  status: Type.Enum([...SESSION_STATUSES]),
  relearn: Type.Boolean(),
  startedAt: DateTime,
  updatedAt: DateTime,
  completedAt: Nullable(DateTime),
  deckVersion: Type.String({ format: 'date-time' }),
  progress: ProgressSchema,
  stats: Type.Union([SessionStatsSchema, Type.Null()]),
}, { additionalProperties: false, description: 'A review session without its queue and answers (GET /reviews/{sessionId} has them)' });

export const SessionListSchema = Type.Object({
  sessions: Type.Array(SessionSummarySchema, { description: 'Newest first (startedAt, then id)' }),
  nextToken: Nullable(Type.String({ description: 'Opaque keyset cursor for the next page; null on the last page' })),
}, { additionalProperties: false });

export const SessionListQuerySchema = Type.Object({
  deckId: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only this deck's sessions; a deck that is not the user's is 404 DECK_NOT_FOUND" })),
  status: Type.Optional(Type.Enum([...SESSION_STATUSES])),
  ...PageQuery,
});

export type Due = Static<typeof DueSchema>;
export type Schedule = Static<typeof ScheduleSchema>;
export type SessionSummary = Static<typeof SessionSummarySchema>;
export type SessionList = Static<typeof SessionListSchema>;
export type StartSessionBody = Static<typeof StartSessionBodySchema>;
export type AnswerBody = Static<typeof AnswerBodySchema>;
export type Progress = Static<typeof ProgressSchema>;
export type AnswerRecord = Static<typeof AnswerRecordSchema>;
export type AnswerResult = Static<typeof AnswerResultSchema>;
export type SessionStats = Static<typeof SessionStatsSchema>;
export type Session = Static<typeof SessionSchema>;
