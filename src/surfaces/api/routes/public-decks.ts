import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, IdempotencyKeyHeader, PATH_ERRORS, errorResponses } from '../route-schemas.ts';
import { PageQuery, PathId } from '../../../schemas/common.ts';
import { CopiedDeckSchema, PublicDeckListSchema, PublicDeckSchema, SearchQuery, TagQuery } from '../../../modules/decks/deck-search.schemas.ts';
import { copyPublicDeck, getPublicDeck, listPublicDecks } from '../../../modules/decks/public-decks.service.ts';

const DeckIdParams = Type.Object({ deckId: PathId() });
const READ_ERRORS = [...AUTH_ERRORS, ...PATH_ERRORS, 'FORBIDDEN', 'DECK_NOT_FOUND'] as const;

export const publicDecksRoutes: RouteModule = (app, { ctx, idempotent }) => {
  app.get('/public/decks', {
    config: { auth: { scope: 'public-decks:read' } },
    schema: {
      operationId: 'listPublicDecks',
      tags: ['public decks'],
      summary: "List every user's public decks (extension)",
      description: 'Only `public` decks (never `unlisted` or `private`), without owner details or editUrl. Newest update first; with `q`, those matching every word by relevance (title, description, tags, card text). `tag`: exact, case-insensitive; `lang`: the deck\'s language code, case-insensitive. Needs `public-decks:read` (personal access tokens only).',
      querystring: Type.Object({
        q: Type.Optional(SearchQuery),
        tag: Type.Optional(TagQuery),
        lang: Type.Optional(Type.String({ minLength: 2, maxLength: 35, pattern: '^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$', description: 'Language code such as en, pt-BR' })),
        ...PageQuery,
      }),
      response: { 200: PublicDeckListSchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN']) },
    },
  }, async (request) => listPublicDecks(ctx, {
    q: request.query.q, tag: request.query.tag, lang: request.query.lang, limit: request.query.limit ?? 25, token: request.query.token,
  }));

  app.get('/public/decks/:deckId', {
    config: { auth: { scope: 'public-decks:read' } },
    schema: {
      operationId: 'getPublicDeck',
      tags: ['public decks'],
      summary: 'Read a public or unlisted deck with its cards (extension)',
      description: 'Any user\'s deck that is `public` or `unlisted`, without editUrl. A private deck, or none: 404 DECK_NOT_FOUND.',
      params: DeckIdParams,
      response: { 200: PublicDeckSchema, ...errorResponses(READ_ERRORS) },
    },
  }, async (request) => getPublicDeck(ctx, { deckId: request.params.deckId }));

  app.post('/public/decks/:deckId/copy', {
    config: { auth: { scope: 'public-decks:read', also: 'decks:write' }, idempotency: 'copy-public-deck' },
    schema: {
      operationId: 'copyPublicDeck',
      tags: ['public decks'],
      summary: "Copy a public or unlisted deck into the user's decks (extension)",
      description: 'A private copy with new card ids and no review history; `copiedFrom` names the source. Needs `public-decks:read` and `decks:write`. At deck capacity: 403 DECK_LIMIT_REACHED. `Idempotency-Key` accepted.',
      params: DeckIdParams,
      headers: Type.Object({ 'idempotency-key': Type.Optional(IdempotencyKeyHeader) }),
      response: {
        201: CopiedDeckSchema,
        ...errorResponses([...READ_ERRORS, ...BODY_ERRORS, 'DECK_LIMIT_REACHED', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_IN_USE']),
      },
    },
  }, async (request, reply) => idempotent(request, reply, (beforeCommit) => copyPublicDeck(ctx, principalOf(request), { deckId: request.params.deckId }, beforeCommit), () => 201));
};
