import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PathId } from '../../../schemas/common.ts';
import {
  AnswerBodySchema, AnswerResultSchema, DueSchema, IdParams, ScheduleSchema, SessionListQuerySchema, SessionListSchema, SessionSchema,
  StartSessionBodySchema,
} from '../../../modules/reviews/reviews.schemas.ts';
import { getSchedule, listDue, listSessions } from '../../../modules/reviews/review-overview.service.ts';
import { answerCard, completeSession, getSession, startSession } from '../../../modules/reviews/reviews.service.ts';

const SESSION_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'SESSION_NOT_FOUND'] as const;

export const reviewsRoutes: RouteModule = (app, { ctx, idempotent }) => {
  app.post('/reviews', {
    config: { auth: { scope: 'reviews:write' }, idempotency: 'start-review' },
    schema: {
      operationId: 'startReviewSession',
      tags: ['reviews'],
      summary: 'Start or resume a review session for a deck',
      description: [
        '`resume: true` returns the active session of this deck if there is one (its queue as it was), else starts one. Without it a new session always starts, and an active session of the same deck becomes `abandoned`. 201 either way; there is never more than one active session per deck.',
        'The queue (`cards`) is fixed at start: cards due now (earliest due first), then new cards (never reviewed) in deck order. Reviewed cards not yet due are left out, so the queue may be empty; an empty session can be completed at once.',
        '`relearn: true` (extension; default false): a card rated `again` comes back at the end of the queue, its id appended to `cards`, up to 3 times a session. An answer for that card then answers its pending return; the retry and conflict rules apply to each return as to a card.',
        '`next` (extension) is the first unanswered card of the queue, the card itself, so a quiz loop needs no second call. `Idempotency-Key` (extension) is accepted: a retry with the same key and body returns the first response.',
        'A deck that does not exist or belongs to another user is 404 DECK_NOT_FOUND.',
      ].join('\n\n'),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
      body: StartSessionBodySchema,
      response: {
        201: SessionSchema,
        ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN', ...BODY_ERRORS, 'SCHEMA_INVALID', 'DECK_NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE']),
      },
    },
  }, async (request, reply) => {
    request.activityDeckId = request.body.deckId;
    const { deckId, resume, relearn } = request.body;
    return idempotent(request, reply, (beforeCommit) => startSession(ctx, principalOf(request), {
      deckId, resume: resume === true, relearn: relearn === true,
    }, beforeCommit), () => 201);
  });

  app.get('/reviews', {
    config: { auth: { scope: 'reviews:read' } },
    schema: {
      operationId: 'listReviewSessions',
      tags: ['reviews'],
      summary: "List the user's review sessions, newest first (extension)",
      description: 'Filtered by `deckId` (a deck that is not the user\'s is 404 DECK_NOT_FOUND) and `status`; each session without its queue and answers. `nextToken` is an opaque keyset cursor; a malformed one, or one of another filter, is 400 BAD_REQUEST.',
      querystring: SessionListQuerySchema,
      response: { 200: SessionListSchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN', 'DECK_NOT_FOUND']) },
    },
  }, async (request) => {
    const { deckId, status, limit, token } = request.query;
    if (deckId !== undefined) request.activityDeckId = deckId;
    return listSessions(ctx, principalOf(request), { deckId, status, limit: limit ?? 25, token });
  });

  app.get('/reviews/due', {
    config: { auth: { scope: 'reviews:read' } },
    schema: {
      operationId: 'listDue',
      tags: ['reviews'],
      summary: 'What is due in each deck (extension)',
      description: '`due`: reviewed cards whose FSRS due time has passed; `new`: cards never reviewed; `nextDueAt`: the earliest due time still to come (null when none). Every deck of the user is listed, as `GET /decks` orders them.',
      response: { 200: DueSchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN']) },
    },
  }, async (request) => listDue(ctx, principalOf(request)));

  app.get('/decks/:deckId/schedule', {
    config: { auth: { scope: 'reviews:read' } },
    schema: {
      operationId: 'getDeckSchedule',
      tags: ['reviews'],
      summary: "Each card's FSRS state in a deck (extension)",
      description: 'Every card of the deck in deck order. `state` is `new` (never reviewed: due, stability, difficulty and lastReviewedAt null), `learning`, `review` or `relearning`. Another user\'s deck is 403 DECK_FORBIDDEN, as for any deck in the path.',
      params: Type.Object({ deckId: PathId() }),
      response: { 200: ScheduleSchema, ...errorResponses([...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND']) },
    },
  }, async (request) => getSchedule(ctx, principalOf(request), { deckId: request.params.deckId }));

  app.get('/reviews/:sessionId', {
    config: { auth: { scope: 'reviews:read' } },
    schema: {
      operationId: 'getReviewSession',
      tags: ['reviews'],
      summary: 'Read a review session',
      description: 'A session of another user is 404 SESSION_NOT_FOUND, as for one that does not exist. `stats` is null until the session is completed.',
      params: IdParams,
      response: { 200: SessionSchema, ...errorResponses(SESSION_ERRORS) },
    },
  }, async (request) => getSession(ctx, principalOf(request), { sessionId: request.params.sessionId }));

  app.post('/reviews/:sessionId/answers', {
    config: { auth: { scope: 'reviews:write' } },
    schema: {
      operationId: 'answerReviewCard',
      tags: ['reviews'],
      summary: 'Record the answer for one card',
      description: [
        'Idempotent: one answer per card per session. The same card and rating again returns the stored record (200, even once the session is completed); a different rating for an answered card is 409 ANSWER_CONFLICT.',
        'A session that is completed or abandoned takes no new answer: 409 SESSION_NOT_ACTIVE. A card not in the session queue (or no longer in the deck) is 404 CARD_NOT_FOUND; an unknown session or another user\'s is 404 SESSION_NOT_FOUND.',
        'The answer reschedules the card (FSRS) for this user; `nextDue` is when it is due next.',
      ].join('\n\n'),
      params: IdParams,
      body: AnswerBodySchema,
      response: {
        200: AnswerResultSchema,
        ...errorResponses([...SESSION_ERRORS, ...BODY_ERRORS, 'SCHEMA_INVALID', 'CARD_NOT_FOUND', 'ANSWER_CONFLICT', 'SESSION_NOT_ACTIVE']),
      },
    },
  }, async (request) => answerCard(ctx, principalOf(request), { sessionId: request.params.sessionId, ...request.body }));

  app.post('/reviews/:sessionId/complete', {
    config: { auth: { scope: 'reviews:write' } },
    schema: {
      operationId: 'completeReviewSession',
      tags: ['reviews'],
      summary: 'Complete a review session and get its statistics',
      description: [
        'Fixes the statistics (`stats`) and returns the completed session. Completing again returns the same session and the same stats (200).',
        'An abandoned session cannot be completed: 409 SESSION_NOT_ACTIVE. Send no body (or `{}`); a body that is not JSON is 400 BAD_REQUEST or 415 UNSUPPORTED_MEDIA_TYPE.',
        '`stats.accuracy` is the share of answers not rated `again` (null when nothing was answered); `stats.averageMsPerCard` averages over answers that carry a `durationMs` (null when none does); `stats.nextDue` gives each answered card\'s next due time.',
      ].join('\n\n'),
      params: IdParams,
      response: {
        200: SessionSchema,
        ...errorResponses([...SESSION_ERRORS, ...BODY_ERRORS, 'SESSION_NOT_ACTIVE']),
      },
    },
  }, async (request) => completeSession(ctx, principalOf(request), { sessionId: request.params.sessionId }));
};
