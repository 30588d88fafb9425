import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/database.ts';
import { envelope } from '../../errors.ts';
import { TOKEN_SCOPES } from '../tokens/scopes.ts';
import { API_PREFIX } from '../../plugins/openapi.ts';

export interface SystemDeps {
  db: Db;
  publicUrl: string;
  /** Readiness probes of the other dependencies (Redis), by name; each throws when it is down. */
  checks?: Record<string, () => Promise<void>>;
}

const PROBE_TIMEOUT_MS = 3000;

async function probe(check: () => Promise<void>): Promise<'up' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error('probe timed out')), PROBE_TIMEOUT_MS); });
  try {
    await Promise.race([check(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Routes outside {base_url}: readiness and the OAuth protected-resource metadata (RFC 9728).
 * GET /healthz is 200 when every dependency answers, else 503 naming the ones that are down, so a
 * load balancer takes the instance out until it recovers (it does so by itself).
 */
export function systemRoutes(app: FastifyInstance, deps: SystemDeps): void {
  const probes: Record<string, () => Promise<void>> = {
    database: async () => { await sql`select 1`.execute(deps.db); },
    ...deps.checks,
  };
  app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
    const names = Object.keys(probes);
    const states = await Promise.all(names.map((name) => probe(probes[name] as () => Promise<void>)));
    const checks = Object.fromEntries(names.map((name, i) => [name, states[i]]));
    const down = names.filter((_, i) => states[i] === 'down');
    if (down.length === 0) return { status: 'ok', checks };
    return reply.code(503).header('Retry-After', '5').send(envelope('SERVICE_UNAVAILABLE', `Unavailable: ${down.join(', ')}`, { checks }));
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
