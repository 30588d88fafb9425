import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { AnswerBodySchema, AnswerResultSchema, IdParams, SessionSchema, StartSessionBodySchema } from '../../../modules/reviews/reviews.schemas.ts';
import { answerCard, completeSession, getSession, startSession } from '../../../modules/reviews/reviews.service.ts';

const SESSION_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'SESSION_NOT_FOUND'] as const;

export const reviewsRoutes: RouteModule = (app, { ctx }) => {
  app.post('/reviews', {
    config: { auth: { scope: 'reviews:write' } },
    schema: {
      operationId: 'startReviewSession',
      tags: ['reviews'],
      summary: 'Start or resume a review session for a deck',
      description: [
        '`resume: true` returns the active session of this deck if there is one (its queue as it was), else starts one. Without it a new session always starts, and an active session of the same deck becomes `abandoned`. 201 either way; there is never more than one active session per deck.',
        'The queue (`cards`) is fixed at start: cards due now (earliest due first), then new cards (never reviewed) in deck order. Reviewed cards not yet due are left out, so the queue may be empty; an empty session can be completed at once.',
        'A deck that does not exist or belongs to another user is 404 DECK_NOT_FOUND.',
      ].join('\n\n'),
      body: StartSessionBodySchema,
      response: {
        201: SessionSchema,
        ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN', ...BODY_ERRORS, 'SCHEMA_INVALID', 'DECK_NOT_FOUND']),
      },
    },
  }, async (request, reply) => {
    request.activityDeckId = request.body.deckId;
    return reply.code(201).send(await startSession(ctx, principalOf(request), { deckId: request.body.deckId, resume: request.body.resume === true }));
  });

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
