import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, IfMatchHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PathId } from '../../../schemas/common.ts';
import { AppendBodySchema, AppendCardsResultSchema, CardDtoSchema, CardPatchSchema } from '../../../modules/decks/decks.schemas.ts';
import { appendCards, patchDeckCard } from '../../../modules/cards/cards.service.ts';

const DECK_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND', ...BODY_ERRORS, 'SCHEMA_INVALID', 'VERSION_MISMATCH'] as const;

export const cardsRoutes: RouteModule = (app, { ctx, idempotent }) => {
  app.post('/decks/:deckId/cards', {
    config: { auth: { scope: 'decks:write' }, idempotency: 'append-cards' },
    schema: {
      operationId: 'appendCards',
      tags: ['cards'],
      summary: 'Append cards at the end of a deck',
      description: 'Never deletes or replaces cards. The deck total after appending must not exceed 250 (TOO_MANY_CARDS). Concurrent appends never lose a card.',
      params: Type.Object({ deckId: PathId() }),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader), 'if-match': Type.Optional(IfMatchHeader) }),
      body: AppendBodySchema,
      response: {
        200: AppendCardsResultSchema,
        ...errorResponses([...DECK_ERRORS, 'TOO_MANY_CARDS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE']),
      },
    },
  }, async (request, reply) => idempotent(request, reply, (beforeCommit) => appendCards(ctx, principalOf(request), {
    deckId: request.params.deckId, cards: request.body.cards, ifMatch: request.headers['if-match'],
  }, beforeCommit), () => 200));

  app.patch('/decks/:deckId/cards/:cardId', {
    config: { auth: { scope: 'decks:write' } },
    schema: {
      operationId: 'updateCard',
      tags: ['cards'],
      summary: 'Update one card',
      description: 'Fields not in the body keep their values; `extras`, when given, replaces the extras object. Unknown card: 404 CARD_NOT_FOUND.',
      params: Type.Object({ deckId: PathId(), cardId: PathId() }),
      headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
      body: CardPatchSchema,
      response: { 200: CardDtoSchema, ...errorResponses([...DECK_ERRORS, 'CARD_NOT_FOUND']) },
    },
  }, async (request) => patchDeckCard(ctx, principalOf(request), {
    deckId: request.params.deckId, cardId: request.params.cardId, patch: request.body, ifMatch: request.headers['if-match'],
  }));
};
