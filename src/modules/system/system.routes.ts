import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { TOKEN_SCOPES } from '../tokens/scopes.ts';
import { API_PREFIX } from '../../plugins/openapi.ts';

/** Routes outside {base_url}: health and the OAuth protected-resource metadata (RFC 9728). */
export function systemRoutes(app: FastifyInstance, deps: { db: Db; publicUrl: string }): void {
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await sql`select 1`.execute(deps.db);
      return { status: 'ok', checks: { database: 'up' } };
    } catch {
      return reply.code(503).header('Retry-After', '5').send({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unavailable', details: { checks: { database: 'down' } } },
      });
    }
  });
  const metadata = {
    resource: `${deps.publicUrl}${API_PREFIX}`,
    scopes_supported: [...TOKEN_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Flashdeck Integrations API',
    resource_documentation: `${deps.publicUrl}${API_PREFIX}/docs`,
  };
  for (const path of ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${API_PREFIX}`]) {
    app.get(path, { schema: { hide: true } }, async () => metadata);
  }
}
