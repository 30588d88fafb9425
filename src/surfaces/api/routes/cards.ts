import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, IfMatchHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PathId } from '../../../schemas/common.ts';
import {
  AppendBodySchema, AppendCardsResultSchema, CardDtoSchema, CardPatchSchema, CardsPatchBodySchema, CardsPatchResultSchema,
  DeleteCardResultSchema, MoveCardBodySchema, MoveCardResultSchema,
} from '../../../modules/decks/decks.schemas.ts';
import { appendCards, deleteDeckCard, getDeckCard, moveDeckCard, patchDeckCard, patchDeckCards } from '../../../modules/cards/cards.service.ts';

const CardParams = Type.Object({ deckId: PathId(), cardId: PathId() });
const READ_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND', 'CARD_NOT_FOUND'] as const;
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

  app.get('/decks/:deckId/cards/:cardId', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'getCard',
      tags: ['cards'],
      summary: 'Read one card (extension)',
      description: 'A card that is not in the deck is 404 CARD_NOT_FOUND.',
      params: CardParams,
      response: { 200: CardDtoSchema, ...errorResponses(READ_ERRORS) },
    },
  }, async (request) => getDeckCard(ctx, principalOf(request), { deckId: request.params.deckId, cardId: request.params.cardId }));

  app.delete('/decks/:deckId/cards/:cardId', {
    config: { auth: { scope: 'decks:write' } },
    schema: {
      operationId: 'deleteCard',
      tags: ['cards'],
      summary: 'Delete one card (extension)',
      description: "Later cards move up one; the deck gets a new `version`. The card's schedule goes with it; answers already recorded stay in their sessions.",
      params: CardParams,
      headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
      response: { 200: DeleteCardResultSchema, ...errorResponses([...READ_ERRORS, 'VERSION_MISMATCH']) },
    },
  }, async (request) => deleteDeckCard(ctx, principalOf(request), {
    deckId: request.params.deckId, cardId: request.params.cardId, ifMatch: request.headers['if-match'],
  }));

  app.post('/decks/:deckId/cards/:cardId/move', {
    config: { auth: { scope: 'decks:write' } },
    schema: {
      operationId: 'moveCard',
      tags: ['cards'],
      summary: 'Move one card to another position (extension)',
      description: 'The cards between move by one, so orders stay 0 to cardCount - 1. An `order` past the last card is 400 SCHEMA_INVALID. A move to where the card is changes nothing, not even `version`.',
      params: CardParams,
      headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
      body: MoveCardBodySchema,
      response: { 200: MoveCardResultSchema, ...errorResponses([...READ_ERRORS, ...BODY_ERRORS, 'VERSION_MISMATCH']) },
    },
  }, async (request) => moveDeckCard(ctx, principalOf(request), {
    deckId: request.params.deckId, cardId: request.params.cardId, order: request.body.order, ifMatch: request.headers['if-match'],
  }));

  app.patch('/decks/:deckId/cards', {
    config: { auth: { scope: 'decks:write' }, idempotency: 'update-cards' },
    schema: {
      operationId: 'updateCards',
      tags: ['cards'],
      summary: 'Update many cards at once (extension)',
      description: 'Every change or none, with one new `version` (none when nothing changes). 1 to 250 entries (more: 400 TOO_MANY_CARDS), each a card id of this deck and at least one card field; a card of another deck, or none, is 404 CARD_NOT_FOUND naming the entry (`details.field`), the same card twice 400 SCHEMA_INVALID. Answers with every card named, as it now is.',
      params: Type.Object({ deckId: PathId() }),
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader), 'if-match': Type.Optional(IfMatchHeader) }),
      body: CardsPatchBodySchema,
      response: {
        200: CardsPatchResultSchema,
        ...errorResponses([...DECK_ERRORS, 'CARD_NOT_FOUND', 'TOO_MANY_CARDS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE']),
      },
    },
  }, async (request, reply) => idempotent(request, reply, (beforeCommit) => patchDeckCards(ctx, principalOf(request), {
    deckId: request.params.deckId, cards: request.body.cards, ifMatch: request.headers['if-match'],
  }, beforeCommit), () => 200));
};
