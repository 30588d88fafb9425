// The per-call policy (src/policy/) on the API's routes: a route that declares `config.auth` gets,
// bound when it is registered (no per-request lookup of its options), an onRequest hook that
// authenticates (401), admits (429; RateLimit headers on every admitted response) and checks the
// scope (403), and an onResponse hook that records the call in the credential's activity log.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { addRouteHook, callRecord, soleHeader, type Api } from '../http.ts';
import { NO_READS, type Admitted, type Policy, type ProtectedResource } from '../../policy/policy.ts';
import { isPromise } from '../../promise.ts';
import type { Verification } from '../../modules/identity/verifier.ts';
import type { Scope } from '../../modules/identity/scopes.ts';
import type { BeforeUnrouted } from './http-semantics.ts';

/** The longest path recorded for a call no route serves. */
const UNROUTED_PATH_CHARS = 200;

export interface RoutePolicy {
  /** Binds the policy to every route registered after this on `api` that declares `config.auth`. */
  bind(api: Api): void;
  /** The policy's part of a call no route serves, for the not-found handler (before any route exists). */
  readonly unroutedCall: BeforeUnrouted;
}

export function routePolicy(policy: Policy, resource: ProtectedResource): RoutePolicy {
  // Callback style, awaiting only what is I/O: with a cached token and in-process counters the
  // whole check runs without a promise (docs/performance.md).
  function admit(request: FastifyRequest, reply: FastifyReply, scope: Scope | null, reads: ((request: FastifyRequest) => readonly string[]) | undefined, done: (error?: Error) => void): void {
    try {
      const verification = policy.authenticateNow(soleHeader(request.raw, 'authorization'), request.ip, resource);
      if (isPromise(verification)) verification.then((v) => { admitVerified(request, reply, scope, reads, v, done); }, done);
      else admitVerified(request, reply, scope, reads, verification, done);
    } catch (error) {
      done(error as Error);
    }
  }

  function admitVerified(
    request: FastifyRequest, reply: FastifyReply, scope: Scope | null, reads: ((request: FastifyRequest) => readonly string[]) | undefined,
    verification: Verification, done: (error?: Error) => void,
  ): void {
    try {
      // Set before a refusal too: a revoked or expired token's call is still recorded under it.
      request.principal = verification.principal;
      if (verification.refused !== null) {
        done(verification.refused);
        return;
      }
      const admitted = policy.admitCall(verification.principal, scope, resource, request.ip, reads === undefined ? NO_READS : reads(request));
      if (isPromise(admitted)) admitted.then((a) => { admittedCall(request, reply, a, done); }, done);
      else admittedCall(request, reply, admitted, done);
    } catch (error) {
      done(error as Error);
    }
  }

  function admittedCall(request: FastifyRequest, reply: FastifyReply, admitted: Admitted, done: (error?: Error) => void): void {
    request.reads = admitted.values;
    reply.header('RateLimit-Policy', admitted.rateLimitPolicy);
    reply.header('RateLimit', admitted.rateLimit);
    // A route's second scope (copying a public deck also needs decks:write).
    const also = request.routeOptions.config.auth?.also;
    if (also !== undefined && request.principal != null) {
      try {
        policy.requireScope(request.principal, also, resource);
      } catch (error) {
        done(error as Error);
        return;
      }
    }
    done();
  }

  function record(request: FastifyRequest, reply: FastifyReply, route: string): void {
    const principal = request.principal;
    if (principal === null) return;
    // A misrouted call's parameter is a literal of the path, not a deck.
    const params = request.misrouted ? undefined : request.params as { deckId?: unknown } | undefined;
    policy.record(principal, callRecord(request, {
      route,
      deckId: typeof params?.deckId === 'string' ? params.deckId : request.activityDeckId,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
      errorCode: request.errorCode,
    }));
  }

  /**
   * A call no route serves (404, or 405 under another method), made with a token: authenticated,
   * admitted and recorded like any call (every call made with a token is in its activity log and
   * counts against its limits), then answered 404 or 405. A refused token changes nothing of the
   * answer (it still counts against the address's failed-auth throttle); one that identifies its
   * owner (revoked, expired) records the call, as on a route.
   */
  async function unroutedCall(request: FastifyRequest, reply: FastifyReply, route: string): Promise<void> {
    const authorization = soleHeader(request.raw, 'authorization');
    if (authorization === undefined) return;
    const verification = await policy.authenticateNow(authorization, request.ip, resource);
    const principal = verification.principal;
    if (principal === null) return;
    request.principal = principal;
    const recorded = route.slice(0, UNROUTED_PATH_CHARS);
    reply.raw.once('finish', () => { record(request, reply, recorded); });
    if (verification.refused !== null) return;
    const admitted = await policy.admitNow(policy.tokenBucket(principal), request.ip, NO_READS);
    reply.header('RateLimit-Policy', admitted.rateLimitPolicy);
    reply.header('RateLimit', admitted.rateLimit);
  }

  function bind(api: Api): void {
    api.addHook('onRoute', (route) => {
      const auth = route.config?.auth;
      if (!auth) return;
      const { scope, reads } = auth;
      const url = route.url;
      addRouteHook(route as never, 'onRequest', (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => { admit(request, reply, scope, reads, done); });
      addRouteHook(route as never, 'onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        done();
        // The not-found handler recorded it (unroutedCall).
        if (!request.misrouted) record(request, reply, url);
      });
    });
  }

  return { bind, unroutedCall };
}
