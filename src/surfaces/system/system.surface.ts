// The routes outside every surface: readiness and the OAuth discovery documents.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceContext } from '../../context.ts';
import { envelope } from '../../errors.ts';
import { checkDatabase } from '../../modules/system/health.service.ts';
import { anyOriginPreflight } from '../http.ts';

export interface SystemDeps {
  ctx: Pick<ServiceContext, 'db'>;
  /** Readiness probes of the other dependencies (Redis), by name; each throws when it is down. */
  checks?: Record<string, () => Promise<void>>;
  /** The protected resources' metadata documents (RFC 9728), each at its paths. */
  resources: readonly { documentPaths: readonly string[]; document: Readonly<Record<string, unknown>> }[];
  /**
   * The authorization server's handler (oidc-provider's), which answers its RFC 8414 metadata;
   * asked for on each request, since the provider is made on first use.
   */
  authorizationServer?: () => Promise<(req: IncomingMessage, res: ServerResponse) => void>;
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
 * Routes outside every surface, answered by the root's JSON error and not-found handlers:
 * readiness, the OAuth protected-resource metadata (RFC 9728) and authorization-server metadata (RFC 8414).
 * GET /healthz is 200 when every dependency answers, else 503 naming the ones that are down, so a
 * load balancer takes the instance out until it recovers (it does so by itself).
 */
export function systemRoutes(app: FastifyInstance, deps: SystemDeps): void {
  const probes: Record<string, () => Promise<void>> = {
    database: () => checkDatabase(deps.ctx),
    ...deps.checks,
  };
  app.get('/healthz', { schema: { hide: true } }, async (request, reply) => {
    const names = Object.keys(probes);
    const states = await Promise.all(names.map((name) => probe(probes[name])));
    const checks = Object.fromEntries(names.map((name, i) => [name, states[i]]));
    const down = names.filter((_, i) => states[i] === 'down');
    if (down.length === 0) return { status: 'ok', checks };
    return reply.code(503).header('Retry-After', '5').send(envelope('SERVICE_UNAVAILABLE', `Unavailable: ${down.join(', ')}`, { checks }, String(request.id)));
  });
  // Protected-resource metadata is public and readable from any origin (DECISIONS "MCP"), so a
  // browser-based client can start OAuth discovery: `*`, and a preflight for the headers it sends.
  for (const { documentPaths, document } of deps.resources) {
    for (const path of documentPaths) {
      app.get(path, { schema: { hide: true } }, async (_request, reply) => {
        void reply.header('Access-Control-Allow-Origin', '*');
        return document;
      });
      anyOriginPreflight(app, path, 'GET, HEAD, OPTIONS');
    }
  }
  const { authorizationServer } = deps;
  if (authorizationServer !== undefined) {
    // RFC 8414 metadata is oidc-provider's discovery document (same issuer, endpoints, methods),
    // served under both names: OpenID Connect clients (openid-client's default discovery) ask for
    // openid-configuration, OAuth clients for oauth-authorization-server.
    // oidc-provider answers the GET to any origin; the preflight of a client that sends a header
    // (the MCP SDK sends MCP-Protocol-Version) fell through to the pages' 404.
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      app.get(path, { schema: { hide: true } }, async (request, reply) => {
        const handler = await authorizationServer();
        void reply.hijack();
        request.raw.url = '/.well-known/openid-configuration';
        handler(request.raw, reply.raw);
      });
      anyOriginPreflight(app, path, 'GET, HEAD, OPTIONS');
    }
  }
}

export const SYSTEM_PLUGIN = 'flashdeck-system';

export const systemPlugin = fp<SystemDeps>((app, deps, done) => {
  systemRoutes(app, deps);
  done();
}, { name: SYSTEM_PLUGIN, dependencies: ['flashdeck-root'], encapsulate: true, fastify: '5.x' });
