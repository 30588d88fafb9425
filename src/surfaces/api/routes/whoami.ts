import { principalOf, type RouteModule } from '../../http.ts';
import { whoAmI, WhoAmISchema } from '../../../modules/tokens/whoami.ts';
import { AUTH_ERRORS, errorResponses } from '../route-schemas.ts';

export const whoamiRoutes: RouteModule = (app) => {
  app.get('/whoami', {
    config: { auth: { scope: null } },
    schema: {
      operationId: 'whoami',
      tags: ['account'],
      summary: 'Identify the calling token (connection test)',
      response: { 200: WhoAmISchema, ...errorResponses(AUTH_ERRORS) },
    },
  }, async (request) => whoAmI(principalOf(request)));
};
