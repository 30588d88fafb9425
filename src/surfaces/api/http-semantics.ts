// HTTP semantics of the API's responses: compression (gzip, deflate, brotli at a fast level),
// `Cache-Control: no-store` unless a route says otherwise (every answer is private data), weak
// ETags once a body is compressed (the bytes differ from the identity ones, as nginx does), and
// 405 METHOD_NOT_ALLOWED with `Allow` for a path that exists under other methods.
import compress from '@fastify/compress';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from '../../errors.ts';
import { addRouteHook, JSON_TYPE, RESPONSE_COMPRESSION, type Api } from '../http.ts';
import { jsonNotFound } from '../errors.ts';

interface RoutePattern {
  readonly segments: readonly string[];
  readonly methods: Set<string>;
}

export async function registerHttpSemantics(api: Api): Promise<void> {
  await api.register(compress, RESPONSE_COMPRESSION);
  // Route-level and registered after compress, so this runs once the body is compressed.
  api.addHook('onRoute', (route) => {
    addRouteHook(route as never, 'onSend', weakenCompressedEtag);
  });
  api.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) reply.header('Cache-Control', 'no-store');
    done(null, payload);
  });
}

function weakenCompressedEtag(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  const etag = reply.getHeader('etag');
  if (typeof etag === 'string' && !etag.startsWith('W/') && reply.hasHeader('content-encoding')) reply.header('ETag', `W/${etag}`);
  done(null, payload);
}

/**
 * What the not-found handler does before it answers a call no route serves (`route`: the path
 * pattern of a 405, else the path as sent): the per-call policy's part (route-policy.ts).
 */
export type BeforeUnrouted = (request: FastifyRequest, reply: FastifyReply, route: string) => Promise<void>;

export interface Unrouted {
  /** The not-found handler: 405 with `Allow` for a path some route serves under other methods, else 404. */
  readonly handler: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

interface Match {
  readonly url: string;
  readonly pattern: RoutePattern;
}

/**
 * The API's 404 and 405, for the path as OpenAPI matches it: the most concrete pattern that fits
 * (fewest parameters; then the one whose first parameter comes later). Patterns are collected from
 * the routes as they are registered; call before registering them.
 */
export function methodNotAllowed(api: Api, before: BeforeUnrouted): Unrouted {
  const patterns = new Map<string, RoutePattern>();
  /** Every literal segment of every route: a parameter holding none of them is never misrouted. */
  const literals = new Set<string>();
  api.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let pattern = patterns.get(route.url);
    if (pattern === undefined) {
      pattern = { segments: splitPath(route.url), methods: new Set() };
      patterns.set(route.url, pattern);
      for (const segment of pattern.segments) if (!segment.startsWith(':')) literals.add(segment);
    }
    for (const method of methods) pattern.methods.add(method);
    // Only a route with a parameter can be handed a literal path; it checks before its policy
    // (bound later, so its hook runs after this one) and after CORS (an instance hook).
    if (route.url.includes(':')) addRouteHook(route as never, 'onRequest', misrouted);
  });

  function pathOf(request: FastifyRequest): string {
    return request.url.split('?')[0] ?? '';
  }

  function bestMatch(path: readonly string[]): Match | null {
    let best: Match | null = null;
    for (const [url, pattern] of patterns) {
      if (!matches(pattern.segments, path)) continue;
      if (best === null || moreConcrete(pattern.segments, best.pattern.segments)) best = { url, pattern };
    }
    return best;
  }

  const handler = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const pathname = pathOf(request);
    const best = bestMatch(splitPath(pathname));
    const notAllowed = best !== null && !best.pattern.methods.has(request.method);
    await before(request, reply, notAllowed ? best.url : pathname);
    if (!notAllowed) {
      jsonNotFound(request, reply);
      return;
    }
    const allowed = new Set(best.pattern.methods);
    allowed.add('OPTIONS');
    if (allowed.has('GET')) allowed.add('HEAD');
    const list = [...allowed].sort();
    const allow = list.join(', ');
    void reply.code(405).header('Allow', allow).type(JSON_TYPE)
      .send(envelope('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allow}`, { allowed: list }, String(request.id)));
  };

  /**
   * Sends to the handler a call the router gave this route although a path of its own exists
   * under other methods: `PATCH /decks/capacity` is that path under another method (405), not a
   * deck named "capacity" (the spec: "The literal path capacity is not a deck id"), as OpenAPI
   * matches a concrete path before a templated one. Callback style: every call of a route with a
   * parameter passes here, and the common case (an id, which is no literal of the API) makes no
   * promise.
   */
  function misrouted(request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void {
    const params = Object.values(request.params as Record<string, unknown>);
    const best = params.some((value) => typeof value === 'string' && literals.has(value)) ? bestMatch(splitPath(pathOf(request))) : null;
    if (best === null || best.url === request.routeOptions.url) {
      done();
      return;
    }
    request.misrouted = true;
    // Answered by the handler (404 or 405); done() only for an error it throws.
    handler(request, reply).catch(done);
  }

  return { handler };
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => segment.startsWith(':') || segment === path[i]);
}

/** Whether pattern `a` is more concrete than `b` (both fit the same path). */
function moreConcrete(a: readonly string[], b: readonly string[]): boolean {
  const params = (segments: readonly string[]) => segments.filter((s) => s.startsWith(':')).length;
  const first = (segments: readonly string[]) => segments.findIndex((s) => s.startsWith(':'));
  if (params(a) !== params(b)) return params(a) < params(b);
  return first(a) > first(b) && first(b) !== -1;
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

