import { Type } from 'typebox';
import { PageQuery } from '../../../schemas/common.ts';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, errorResponses } from '../route-schemas.ts';
import { SearchQuery, SearchResultsSchema } from '../../../modules/decks/deck-search.schemas.ts';
import { searchCards } from '../../../modules/decks/deck-search.service.ts';

export const searchRoutes: RouteModule = (app, { ctx }) => {
  app.get('/search', {
    config: { auth: { scope: 'decks:read' } },
    schema: {
      operationId: 'searchCards',
      tags: ['decks'],
      summary: "Find cards across the user's decks (extension)",
      description: 'Cards whose front, back or extras.info hold every word of `q` (case and accents ignored; quotes and operators are plain text), by relevance, from the database\'s full-text index. Decks in the trash are not searched. `nextToken` continues the same query only.',
      querystring: Type.Object({
        q: SearchQuery,
        ...PageQuery,
      }),
      response: { 200: SearchResultsSchema, ...errorResponses([...AUTH_ERRORS, 'FORBIDDEN']) },
    },
  }, async (request) => searchCards(ctx, principalOf(request), { q: request.query.q, limit: request.query.limit ?? 25, token: request.query.token }));
};
