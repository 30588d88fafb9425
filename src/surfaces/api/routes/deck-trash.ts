import { Type } from 'typebox';
import { principalOf, sendJson, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IfMatchHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PageQuery, PathId } from '../../../schemas/common.ts';
import { DeckDetailSchema } from '../../../modules/decks/decks.schemas.ts';
import { TrashListSchema } from '../../../modules/decks/deck-trash.schemas.ts';
import { deleteDeck, listTrash, restoreDeck } from '../../../modules/decks/deck-trash.service.ts';

const DeckIdParams = Type.Object({ deckId: PathId() });
const DECK_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND'] as const;

export const deckTrashRoutes: RouteModule = (app, { ctx }) => {
  app.delete('/decks/:deckId', {
    config: { auth: { scope: 'decks:delete' } },
    schema: {
      operationId: 'deleteDeck',
      tags: ['decks'],
      summary: 'Delete a deck: into the trash for 30 days (extension)',
      description: 'From then on the deck is missing everywhere (404 DECK_NOT_FOUND, its previewUrl a 404 page, out of lists and search), frees its place under the deck limit, and its active review sessions become `abandoned`. Deleting it again: 204. `POST /decks/{deckId}/restore` brings it back whole; 30 days after the delete it is purged. Needs `decks:delete` (personal access tokens only).',
      params: DeckIdParams,
      headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
      response: {
        204: Type.Null({ description: 'The deck is in the trash' }),
        ...errorResponses([...DECK_ERRORS, 'VERSION_MISMATCH']),
      },
    },
  }, async (request, reply) => {
    await deleteDeck(ctx, principalOf(request), { deckId: request.params.deckId, ifMatch: request.headers['if-match'] });
    return reply.code(204).send(null);
  });

  app.get('/decks/trash', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'listTrash',
      tags: ['decks'],
      summary: "List the user's deleted decks (extension)",
      description: 'Newest deletion first; each with `deletedAt` and `purgeAt`. `nextToken` is an opaque keyset cursor.',
      querystring: Type.Object({
        ...PageQuery,
      }),
      response: { 200: TrashListSchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN']) },
    },
  }, async (request) => listTrash(ctx, principalOf(request), { limit: request.query.limit ?? 25, token: request.query.token }));

  app.post('/decks/:deckId/restore', {
    config: { auth: { scope: 'decks:delete' } },
    schema: {
      operationId: 'restoreDeck',
      tags: ['decks'],
      summary: 'Bring a deleted deck back from the trash (extension)',
      description: 'The same deck: ids, cards and review history. Answers with the deck (a deck not in the trash is answered as it is). At deck capacity: 403 DECK_LIMIT_REACHED. Needs `decks:delete`.',
      params: DeckIdParams,
      response: { 200: DeckDetailSchema, ...errorResponses([...DECK_ERRORS, ...BODY_ERRORS, 'DECK_LIMIT_REACHED']) },
    },
  }, async (request, reply) => sendJson(reply, await restoreDeck(ctx, principalOf(request), { deckId: request.params.deckId })));
};
