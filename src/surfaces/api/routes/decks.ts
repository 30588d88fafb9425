import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { deckRepresentation, notModified, principalOf, sendJson, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IfMatchHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PageQuery, PathId } from '../../../schemas/common.ts';
import { exportDeckCsv } from '../../../modules/deck-import/deck-csv.ts';
import { exportDeckMarkdown } from '../../../modules/deck-import/deck-markdown.ts';
import { CapacitySchema, DeckDetailSchema, DeckListSchema, DeckPatchSchema } from '../../../modules/decks/decks.schemas.ts';
import { isPromise } from '../../../promise.ts';
import { NO_READS } from '../../../policy/policy.ts';
import { SearchQuery, TagQuery } from '../../../modules/decks/deck-search.schemas.ts';
import { getCapacity, getDeckDetail, listDecks, patchDeck, readDeckBody, type DeckBody } from '../../../modules/decks/decks.service.ts';

const DeckIdParams = Type.Object({ deckId: PathId() });
const DECK_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_FORBIDDEN', 'DECK_NOT_FOUND'] as const;
// A conditional read (notModified) answers 304; every route that can must declare it.
const NOT_MODIFIED = { 304: Type.Null({ description: 'Not modified: If-None-Match holds the current version (the ETag). No body.' }) };

function sendDeckBody(request: FastifyRequest, reply: FastifyReply, deck: DeckBody): void {
  if (!notModified(request, reply, deck.version)) sendJson(reply, deck.body);
}

export const decksRoutes: RouteModule = (app, { ctx }) => {
  const textRead = async (request: FastifyRequest, reply: FastifyReply, as: 'markdown' | 'csv'): Promise<void> => {
    const deck = await getDeckDetail(ctx, principalOf(request), { deckId: (request.params as { deckId: string }).deckId });
    if (notModified(request, reply, deck.version)) return;
    if (as === 'markdown') reply.type('text/markdown; charset=utf-8').send(exportDeckMarkdown(deck));
    else reply.type('text/csv; charset=utf-8; header=present').send(exportDeckCsv(deck));
  };

  // The deck's published version is read with the call's admission (one Redis round trip).
  const versionKey = (request: FastifyRequest): readonly string[] => {
    const key = ctx.deckVersions.keyOf((request.params as { deckId: string }).deckId);
    return key === null ? NO_READS : [key];
  };

  app.get('/decks', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'listDecks',
      tags: ['decks'],
      summary: "List the user's decks",
      description: 'Ordered by updatedAt descending, then id. `nextToken` is an opaque keyset cursor; a malformed or tampered one gives 400 BAD_REQUEST. With `q` (extension): only decks whose title, description and tags, or one of whose cards, hold every word of `q`, by relevance (full-text index). With `tag` (extension): only decks with that tag (exact, case-insensitive). A token belongs to its query: another query\'s is 400 BAD_REQUEST.',
      querystring: Type.Object({
        ...PageQuery,
        q: Type.Optional(SearchQuery),
        tag: Type.Optional(TagQuery),
      }),
      response: { 200: DeckListSchema, ...errorResponses([...AUTH_ERRORS, 'BAD_REQUEST', 'FORBIDDEN']) },
    },
  }, async (request) => listDecks(ctx, principalOf(request), {
    limit: request.query.limit ?? 25, token: request.query.token, q: request.query.q, tag: request.query.tag,
  }));

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
      description: 'With `Accept: text/markdown` (extension) the deck comes back as a deck markdown document that imports back to the same deck; with `Accept: text/csv` (extension) as CSV with a header row (front, back, tags, frontType, backType), which imports back to the same cards\' text, tags and content types. `GET /decks/{deckId}/apkg` exports it as an Anki package.',
      params: DeckIdParams,
      response: {
        200: {
          description: 'The deck',
          content: {
            'application/json': { schema: DeckDetailSchema },
            'text/markdown': { schema: Type.String({ description: 'Deck markdown document' }) },
            'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV: a header row, then one card a row' }) },
          },
        },
        ...NOT_MODIFIED,
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, (request, reply) => {
    // A promise here settles once the response is written: it adopts the reply, a thenable that
    // resolves (to nothing) when the response has finished.
    const as = deckRepresentation(request.headers.accept);
    if (as !== 'json') return textRead(request, reply, as).then(() => reply) as Promise<void>;
    const published = ctx.deckVersions.versionOf(request.params.deckId, request.reads?.[0] ?? null);
    const read = readDeckBody(ctx, principalOf(request), { deckId: request.params.deckId, published });
    // A held body is sent at once: the handler returns nothing, as Fastify expects of a handler that
    // has sent its reply without a promise.
    if (isPromise(read)) return read.then((deck) => { sendDeckBody(request, reply, deck); return reply; }) as Promise<void>;
    sendDeckBody(request, reply, read);
    return undefined;
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
        ...NOT_MODIFIED,
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, async (request, reply) => {
    const deck = await getDeckDetail(ctx, principalOf(request), { deckId: request.params.deckId });
    if (notModified(request, reply, deck.version)) return reply;
    return reply.type('text/markdown; charset=utf-8').send(exportDeckMarkdown(deck));
  });

  app.get('/decks/:deckId/csv', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'exportDeckCsv',
      tags: ['decks'],
      summary: 'Export a deck as CSV (extension)',
      description: 'The same CSV as `GET /decks/{deckId}` with `Accept: text/csv`, on a path of its own so generated clients type it as text: a header row (front, back, tags, frontType, backType), then one card a row. Importing it gives back those fields of every card.',
      params: DeckIdParams,
      response: {
        200: { description: 'The deck as CSV', content: { 'text/csv': { schema: Type.String({ description: 'RFC 4180 CSV' }) } } },
        ...NOT_MODIFIED,
        ...errorResponses(DECK_ERRORS),
      },
    },
  }, async (request, reply) => {
    await textRead(request, reply, 'csv');
    return reply;
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
