import type { FastifyBaseLogger, FastifyInstance, FastifyReply, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ServiceContext } from './context.ts';

export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/** A module's routes: registered under {base_url} with the services they call. */
export type RouteModule = (app: Api, ctx: ServiceContext) => void;

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Picks JSON or markdown by the Accept header's q-values; JSON wins ties and absent headers. */
export function prefersMarkdown(accept: string | undefined): boolean {
  if (!accept) return false;
  let json = -1;
  let markdown = -1;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (range === 'text/markdown') markdown = Math.max(markdown, q);
    else if (range === 'application/json') json = Math.max(json, q);
    else if (range === '*/*' || range === 'application/*') json = Math.max(json, q * 0.999);
  }
  return markdown > 0 && markdown > json;
}

/**
 * Sends a body that is already JSON (text, or UTF-8 bytes of a rendered deck), bypassing the
 * serializer. The reply's typed route generics do not matter here.
 */
export function sendJson(reply: { type(contentType: string): unknown }, body: string | Buffer): FastifyReply {
  return (reply as FastifyReply).type(JSON_TYPE).send(body);
}

type RouteHooks = Record<string, unknown>;

/**
 * Adds a hook to one route (from an onRoute hook), so work only some routes need is not an extra
 * hook on every request.
 */
export function addRouteHook(route: RouteHooks, name: 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse', hook: unknown): void {
  const existing = route[name];
  route[name] = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
}
