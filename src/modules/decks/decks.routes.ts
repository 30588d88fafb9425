import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { notModified, prefersMarkdown, principalOf, sendJson, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IfMatchHeader, PATH_ERRORS, PathId, errorResponses } from '../../schemas/common.ts';
import { exportDeckMarkdown } from '../deck-import/deck-markdown.ts';
import { CapacitySchema, DeckDetailSchema, DeckListSchema, DeckPatchSchema } from './decks.schemas.ts';
import { getCapacity, getDeckBody, getDeckDetail, listDecks, patchDeck } from './decks.service.ts';

const DeckIdParams = Type.Object({ deckId: PathId() });
const NO_KEYS: readonly string[] = Object.freeze([]);
const VERSION_KEY = Buffer.from('"version":');

/**
 * The version in a deck read's JSON bytes: its head (deck fields) comes before the cards, and JSON
 * escapes every quote inside strings, so the first `"version":` is the deck's own key.
 */
function versionOf(body: Buffer): string | null {
  const at = body.indexOf(VERSION_KEY);
  const start = at + VERSION_KEY.length;
  if (at < 0 || body[start] !== 0x22) return null;
  return body.toString('utf8', start + 1, body.indexOf(0x22, start + 1));
}
const DECK_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND'] as const;

export const decksRoutes: RouteModule = (app, { ctx }) => {
  // The deck's published version is read with the call's admission (one Redis round trip).
  const versionKey = (request: FastifyRequest): readonly string[] => {
    const key = ctx.deckVersions.keyOf((request.params as { deckId: string }).deckId);
    return key === null ? NO_KEYS : [key];
  };

  app.get('/decks', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'listDecks',
      tags: ['decks'],
      summary: "List the user's decks",
      description: 'Ordered by updatedAt descending, then id. `nextToken` is an opaque keyset cursor; a malformed or tampered one gives 400 BAD_REQUEST.',
      querystring: Type.Object({
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 25 })),
        token: Type.Optional(Type.String({ minLength: 1, maxLength: 1000, description: 'nextToken of the previous page' })),
      }),
      response: { 200: DeckListSchema, ...errorResponses([...AUTH_ERRORS, 'BAD_REQUEST', 'FORBIDDEN']) },
    },
  }, async (request) => listDecks(ctx, principalOf(request), { limit: request.query.limit ?? 25, token: request.query.token }));

  app.get('/decks/capacity', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'getDeckCapacity',
      tags: ['decks'],
      summary: 'Whether the user may create another deck',
      description: '`deck_limit` null means no limit. The literal path `capacity` is not a deck id.',
      response: { 200: CapacitySchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN']) },
    },
  }, async (request) => getCapacity(ctx, principalOf(request)));

  app.get('/decks/:deckId', {
    config: { auth: { scope: 'decks:read', reads: versionKey } },
    schema: {
      operationId: 'getDeck',
      tags: ['decks'],
      summary: 'Read a deck with its complete card set',
      description: 'With `Accept: text/markdown` (extension) the deck comes back as a deck markdown document that imports back to the same deck.',
      params: DeckIdParams,
      response: {
        200: {
          description: 'The deck',
          content: {
            'application/json': { schema: DeckDetailSchema },
            'text/markdown': { schema: Type.String({ description: 'Deck markdown document' }) },
          },
        },
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, async (request, reply) => {
    if (prefersMarkdown(request.headers.accept)) {
      const deck = await getDeckDetail(ctx, principalOf(request), { deckId: request.params.deckId });
      if (notModified(request, reply, deck.version)) return reply;
      return reply.type('text/markdown; charset=utf-8').send(exportDeckMarkdown(deck));
    }
    const published = ctx.deckVersions.versionOf(request.params.deckId, request.reads?.[0] ?? null);
    const body = await getDeckBody(ctx, principalOf(request), { deckId: request.params.deckId, published });
    if (notModified(request, reply, versionOf(body))) return reply;
    return sendJson(reply, body);
  });

  app.get('/decks/:deckId/markdown', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'exportDeckMarkdown',
      tags: ['decks'],
      summary: 'Export a deck as a deck markdown document (extension)',
      description: 'The same document as `GET /decks/{deckId}` with `Accept: text/markdown`, on a path of its own so generated clients type it as text. Importing it reproduces the deck.',
      params: DeckIdParams,
      response: {
        200: { description: 'The deck markdown document', content: { 'text/markdown': { schema: Type.String({ description: 'Deck markdown document' }) } } },
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, async (request, reply) => {
    const deck = await getDeckDetail(ctx, principalOf(request), { deckId: request.params.deckId });
    if (notModified(request, reply, deck.version)) return reply;
    return reply.type('text/markdown; charset=utf-8').send(exportDeckMarkdown(deck));
  });

  app.patch('/decks/:deckId', {
    config: { auth: { scope: 'decks:write' } },
    schema: {
      operationId: 'updateDeck',
      tags: ['decks'],
      summary: 'Update deck metadata',
      description: 'Metadata only; cards are not editable through it. A PATCH that changes nothing leaves `version` as it is.',
      params: DeckIdParams,
      headers: Type.Object({ 'if-match': Type.Optional(IfMatchHeader) }),
      body: DeckPatchSchema,
      response: {
        200: DeckDetailSchema,
        ...errorResponses([...DECK_ERRORS, ...BODY_ERRORS, 'SCHEMA_INVALID', 'VERSION_MISMATCH']),
      },
    },
  }, async (request, reply) => sendJson(
    reply,
    await patchDeck(ctx, principalOf(request), { deckId: request.params.deckId, patch: request.body, ifMatch: request.headers['if-match'] }),
  ));
};
