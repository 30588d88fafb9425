// The per-call policy (src/policy/) on the API's routes: a route that declares `config.auth` gets,
// bound when it is registered (no per-request lookup of its options), an onRequest hook that
// authenticates (401), admits (429; RateLimit headers on every admitted response) and checks the
// scope (403), and an onResponse hook that records the call in the credential's activity log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addRouteHook, soleHeader, type Api } from '../../http.ts';
import type { Policy, ProtectedResource } from '../../policy/policy.ts';
import type { Scope } from '../../modules/identity/scopes.ts';

const NO_KEYS: readonly string[] = Object.freeze([]);

export function bindRoutePolicy(api: Api, policy: Policy, resource: ProtectedResource): void {
  async function admit(request: FastifyRequest, reply: FastifyReply, scope: Scope | null, reads: ((request: FastifyRequest) => readonly string[]) | undefined): Promise<void> {
    const verification = await policy.authenticate(soleHeader(request.raw, 'authorization'), request.ip, resource);
    // Set before a refusal too: a revoked or expired token's call is still recorded under it.
    request.principal = verification.principal;
    if (verification.refused !== null) throw verification.refused;
    const principal = verification.principal;
    const admitted = await policy.admit(policy.tokenBucket(principal), request.ip, reads === undefined ? NO_KEYS : reads(request));
    request.reads = admitted.values;
    reply.header('RateLimit-Policy', admitted.rateLimitPolicy);
    reply.header('RateLimit', admitted.rateLimit);
    policy.requireScope(principal, scope, resource);
  }

  function record(request: FastifyRequest, reply: FastifyReply, route: string): void {
    const principal = request.principal;
    if (principal === null) return;
    const params = request.params as { deckId?: unknown } | undefined;
    const userAgent = request.headers['user-agent'];
    policy.record(principal, {
      method: request.method,
      route,
      deckId: typeof params?.deckId === 'string' ? params.deckId : request.activityDeckId,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
      address: request.ip,
      userAgent: typeof userAgent === 'string' ? userAgent : null,
      requestId: String(request.id),
    });
  }

  api.addHook('onRoute', (route) => {
    const auth = route.config?.auth;
    if (!auth) return;
    const { scope, reads } = auth;
    const url = route.url;
    addRouteHook(route as never, 'onRequest', (request: FastifyRequest, reply: FastifyReply) => admit(request, reply, scope, reads));
    addRouteHook(route as never, 'onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      done();
      record(request, reply, url);
    });
  });
}
