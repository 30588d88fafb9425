// Review sessions: request and response shapes, with the examples the OpenAPI document shows.
import { Type, type Static } from 'typebox';
import { DateTime, Nullable, PathId } from '../../schemas/common.ts';

export const RATINGS = ['again', 'hard', 'good', 'easy'] as const;
export type ReviewRating = (typeof RATINGS)[number];

export const SESSION_STATUSES = ['active', 'completed', 'abandoned'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

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
}, { additionalProperties: false, examples: [{ deckId: EX_DECK, resume: true }] });

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
}, {
  additionalProperties: false,
  description: 'The recorded answer. Posting the same card and rating again returns this stored record unchanged (durationMs included).',
  examples: [{
    answer: { cardId: EX_CARD_1, rating: 'good', durationMs: 4200, answeredAt: EX_ANSWERED, due: EX_DUE },
    progress: { answered: 1, remaining: 1, total: 2 },
    nextDue: EX_DUE,
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
  total: Type.Integer({ minimum: 0, description: 'Length of the queue' }),
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
    description: 'Next due time of each answered card, in answer order',
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
  cards: Type.Array(Type.String(), {
    maxItems: 250,
    description: 'The queue, fixed at start: cards due now (earliest due first), then new cards (never reviewed) in deck order. Reviewed cards not yet due are not queued; the queue may be empty.',
  }),
  answers: Type.Array(AnswerRecordSchema, { description: 'Answers in the order they were recorded' }),
  progress: ProgressSchema,
  stats: Type.Union([SessionStatsSchema, Type.Null()], { description: 'null until the session is completed; then the same object POST .../complete returned' }),
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
    cards: [EX_CARD_1, EX_CARD_2],
    answers: [{ cardId: EX_CARD_1, rating: 'good', durationMs: 4200, answeredAt: EX_ANSWERED, due: EX_DUE }],
    progress: { answered: 1, remaining: 1, total: 2 },
    stats: statsExample,
  }],
});

export type StartSessionBody = Static<typeof StartSessionBodySchema>;
export type AnswerBody = Static<typeof AnswerBodySchema>;
export type Progress = Static<typeof ProgressSchema>;
export type AnswerRecord = Static<typeof AnswerRecordSchema>;
export type AnswerResult = Static<typeof AnswerResultSchema>;
export type SessionStats = Static<typeof SessionStatsSchema>;
export type Session = Static<typeof SessionSchema>;
