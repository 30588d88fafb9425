// Bearer authentication, per-token rate limits and scopes, as one onRequest hook for API routes:
// authenticate (401), count against the token's limits (429), then check the scope (403).
import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { AppError, isAppError } from '../errors.ts';
import { authenticateToken, type Principal } from '../modules/tokens/tokens.service.ts';
import { addRouteHook } from '../http.ts';
import type { Scope } from '../modules/tokens/scopes.ts';
import { policyHeader, rateLimitHeader, type RateLimitStore } from './rate-limits.ts';

export interface AuthOptions {
  db: Db;
  clock: Clock;
  hashKey: string;
  publicUrl: string;
  rateLimits: RateLimitStore;
}

type RouteAuth = NonNullable<FastifyContextConfig['auth']>;

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

export function registerAuth(app: FastifyInstance, options: AuthOptions): void {
  const metadataUrl = `${options.publicUrl}/.well-known/oauth-protected-resource`;
  const challenge = (extra: string) => `Bearer ${extra}resource_metadata="${metadataUrl}"`;

  const throttled = (seconds: number) => new AppError('RATE_LIMITED', 'Too many failed authentication attempts from this address', undefined, {
    'Retry-After': String(seconds),
  });

  // A throttled address gets 429 whatever it presents. The throttle is read after the token is
  // checked, so on Redis it is the same round trip (one script) as the rate limits.
  async function authenticate(request: FastifyRequest): Promise<Principal> {
    const header = request.headers.authorization;
    const match = header === undefined ? null : BEARER.exec(header);
    try {
      if (!match) throw new AppError('UNAUTHORIZED', header === undefined ? 'An Authorization: Bearer token is required' : 'The Authorization header is not a Bearer token');
      return await authenticateToken(options.db, options.clock, options.hashKey, match[1] as string);
    } catch (error) {
      if (isAppError(error) && error.status === 401) {
        const blocked = await options.rateLimits.failedAuthBlockedFor(request.ip);
        if (blocked > 0) throw throttled(blocked);
        if (header !== undefined) await options.rateLimits.recordFailedAuth(request.ip);
        const extra = header !== undefined ? 'error="invalid_token", ' : '';
        throw new AppError(error.code, error.message, error.details, { 'WWW-Authenticate': challenge(extra) });
      }
      throw error;
    }
  }

  const policy = policyHeader(options.rateLimits.limits);

  async function authorise(request: FastifyRequest, reply: FastifyReply, auth: RouteAuth): Promise<void> {
    const principal = await authenticate(request);
    const peek = auth.peek?.(request) ?? null;
    const { blockedSeconds, decision, peeked } = await options.rateLimits.admit(request.ip, principal.tokenId, options.clock.now().getTime(), peek);
    if (decision === null) throw throttled(blockedSeconds);
    request.peeked = peeked;
    request.principal = principal;
    reply.header('RateLimit-Policy', policy);
    reply.header('RateLimit', rateLimitHeader(decision));
    if (!decision.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per ${decision.window} exceeded`, {
        window: decision.window, limit: decision.limit,
      }, { 'Retry-After': String(decision.resetSeconds) });
    }
    const scope = auth.scope;
    if (scope !== null && !principal.scopes.includes(scope)) {
      throw new AppError('FORBIDDEN', `This call needs the ${scope} scope`, { requiredScope: scope }, {
        'WWW-Authenticate': challenge(`error="insufficient_scope", scope="${scope}", `),
      });
    }
  }

  // A route-level hook on the routes that declare `config.auth`, with their scope bound here:
  // no per-request lookup of the route's options.
  app.addHook('onRoute', (route) => {
    const auth = (route.config as { auth?: RouteAuth } | undefined)?.auth;
    if (!auth) return;
    addRouteHook(route as never, 'onRequest', (request: FastifyRequest, reply: FastifyReply) => authorise(request, reply, auth));
  });
}
