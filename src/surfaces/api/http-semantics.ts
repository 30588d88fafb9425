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

/**
 * The API's not-found handler: a path that some route serves under other methods is 405 with
 * `Allow` (HEAD with GET, OPTIONS for CORS), anything else 404 NOT_FOUND. Patterns are collected
 * from the routes as they are registered; call before registering them.
 */
export function methodNotAllowed(api: Api, before: BeforeUnrouted): (request: FastifyRequest, reply: FastifyReply) => Promise<void> {
  const patterns = new Map<string, RoutePattern>();
  api.addHook('onRoute', (route) => {
    if (route.url.includes('*')) return;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    let pattern = patterns.get(route.url);
    if (pattern === undefined) {
      pattern = { segments: splitPath(route.url), methods: new Set() };
      patterns.set(route.url, pattern);
    }
    for (const method of methods) pattern.methods.add(method);
  });
  return async (request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    const path = splitPath(pathname);
    const allowed = new Set<string>();
    let route: string | null = null;
    for (const [url, pattern] of patterns) {
      if (!matches(pattern.segments, path)) continue;
      route ??= url;
      for (const method of pattern.methods) allowed.add(method);
    }
    const notAllowed = route !== null && !allowed.has(request.method);
    await before(request, reply, (notAllowed ? route : null) ?? pathname);
    if (!notAllowed) {
      jsonNotFound(request, reply);
      return;
    }
    allowed.add('OPTIONS');
    if (allowed.has('GET')) allowed.add('HEAD');
    const list = [...allowed].sort();
    const allow = list.join(', ');
    void reply.code(405).header('Allow', allow).type(JSON_TYPE)
      .send(envelope('METHOD_NOT_ALLOWED', `${request.method} is not allowed here; use ${allow}`, { allowed: list }, String(request.id)));
  };
}

function splitPath(path: string): string[] {
  return path.split('/').filter((segment) => segment !== '');
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  if (pattern.length !== path.length) return false;
  return pattern.every((segment, i) => segment.startsWith(':') || segment === path[i]);
}
