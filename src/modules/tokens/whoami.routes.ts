import { Type, type Static } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, errorResponses } from '../../schemas/common.ts';
import type { Principal } from '../identity/principal.ts';
import { TOKEN_SCOPES } from '../identity/scopes.ts';

export const WhoAmISchema = Type.Object({
  userId: Type.String(),
  scopes: Type.Array(Type.Enum([...TOKEN_SCOPES])),
  source: Type.Enum(['pat', 'oauth'], { description: '`pat` for a personal access token, `oauth` (extension) for an OAuth access token' }),
  token: Type.Object({
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String(),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

/** The calling principal as GET /whoami (and the MCP tool `whoami`) describes it. */
export function whoAmI(p: Principal): Static<typeof WhoAmISchema> {
  return { userId: p.userId, scopes: [...p.scopes], source: p.source, token: { id: p.credentialId, name: p.name, prefix: p.prefix } };
}

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
