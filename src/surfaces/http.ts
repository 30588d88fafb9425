// HTTP helpers shared by the surfaces and the API's route modules. Depends on no feature module.
import type { IncomingMessage } from 'node:http';
import { constants } from 'node:zlib';
import type { FastifyCompressOptions } from '@fastify/compress';
import type {
  FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault,
} from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { BeforeCommit, ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { CallRecord } from '../policy/policy.ts';

export type Api = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, TypeBoxTypeProvider>;

/**
 * Answers an idempotent write (a route that declares `config.idempotency`): runs `write` at most
 * once per Idempotency-Key, passing it the before-commit hook its service must take, and sends the
 * response (`status` of the result) or the stored one (src/surfaces/api/idempotency.ts).
 */
export type IdempotentReply = <R extends object>(
  request: FastifyRequest, reply: FastifyReply,
  write: (beforeCommit: BeforeCommit<R> | undefined) => Promise<R>,
  status: (result: R) => number,
) => Promise<FastifyReply>;

/** What the API's route modules are given. */
export interface ApiDeps {
  ctx: ServiceContext;
  idempotent: IdempotentReply;
}

/** A module's API routes: registered under {base_url} by the API surface (src/surfaces/api/). */
export type RouteModule = (app: Api, deps: ApiDeps) => void;

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * How the API and the MCP endpoint compress their responses (@fastify/compress): per
 * Accept-Encoding, brotli at a fast level, gzip or deflate, bodies of 1 KiB and more; request
 * bodies are taken as sent (the body limit stays a limit on what is parsed).
 */
export const RESPONSE_COMPRESSION: FastifyCompressOptions = {
  global: true,
  globalDecompression: false,
  encodings: ['br', 'gzip', 'deflate'],
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  threshold: 1024,
};

/** How a deck can be read: JSON (the default), deck markdown or CSV (extensions). */
export type DeckRepresentation = 'json' | 'markdown' | 'csv';

/**
 * Picks a deck's representation by the Accept header's q-values; JSON wins ties and absent
 * headers, then markdown, then CSV.
 */
export function deckRepresentation(accept: string | undefined): DeckRepresentation {
  if (!accept) return 'json';
  let json = -1;
  let markdown = -1;
  let csv = -1;
  for (const part of accept.split(',')) {
    const [range, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (range === 'text/markdown') markdown = Math.max(markdown, q);
    else if (range === 'text/csv') csv = Math.max(csv, q);
    else if (range === 'application/json') json = Math.max(json, q);
    else if (range === '*/*' || range === 'application/*') json = Math.max(json, q * 0.999);
  }
  if (markdown > 0 && markdown > json && markdown >= csv) return 'markdown';
  if (csv > 0 && csv > json) return 'csv';
  return 'json';
}

/**
 * Whether an If-None-Match header holds the entity tag `"<version>"`: `*`, or a list with that
 * tag, weak or strong (RFC 9110 weak comparison). Linear in the header's length.
 */
export function ifNoneMatchHolds(header: string | undefined, version: string): boolean {
  if (header === undefined) return false;
  const wanted = `"${version}"`;
  for (const part of header.split(',')) {
    const tag = part.trim();
    if (tag === '*' || (tag.startsWith('W/') ? tag.slice(2) : tag) === wanted) return true;
  }
  return false;
}

/**
 * A private, revalidated representation of a versioned resource (a deck): `ETag: "<version>"` (the
 * same token If-Match takes), `Cache-Control: private, no-cache`, `Vary: Accept, Authorization`.
 * Answers 304 and returns true when If-None-Match already holds this version.
 */
export function notModified(request: FastifyRequest, reply: FastifyReply, version: string | null): boolean {
  reply.header('Cache-Control', 'private, no-cache');
  reply.header('Vary', 'Accept, Authorization');
  if (version === null) return false;
  reply.header('ETag', `"${version}"`);
  if (!ifNoneMatchHolds(request.headers['if-none-match'], version)) return false;
  void reply.code(304).send();
  return true;
}

/**
 * Sends a body that is already JSON (text, or UTF-8 bytes of a rendered deck), bypassing the
 * serializer. The reply's typed route generics do not matter here.
 */
export function sendJson(reply: { type(contentType: string): unknown }, body: string | Buffer): FastifyReply {
  return (reply as FastifyReply).type(JSON_TYPE).send(body);
}

/**
 * The value of a header that must be sent at most once, or undefined. Node keeps only the first
 * of some repeated headers (Authorization) and joins others (Idempotency-Key) with ", ", so only
 * the raw list shows a repeat; a repeat is 400 BAD_REQUEST rather than a guess at which one counts.
 * `name` is lower case.
 */
export function soleHeader(raw: IncomingMessage, name: string): string | undefined {
  const value = raw.headers[name];
  if (value === undefined) return undefined;
  const list = raw.rawHeaders;
  let seen = 0;
  for (let i = 0; i < list.length; i += 2) {
    const header = list[i];
    if (header.length === name.length && header.toLowerCase() === name && ++seen > 1) {
      throw new AppError('BAD_REQUEST', `The ${header} header must be sent once`, { field: name });
    }
  }
  return typeof value === 'string' ? value : value.join(', ');
}

/**
 * The caller of an API route the policy admitted (src/surfaces/api/request.ts declares
 * `request.principal`); handlers run only then.
 */
export function principalOf(request: FastifyRequest): NonNullable<FastifyRequest['principal']> {
  const principal = request.principal;
  if (principal === null) throw new Error('an API handler ran without an authenticated principal');
  return principal;
}

/**
 * The activity log's record of a call made over HTTP: what the request says of itself (method,
 * address, user agent, request id) and what the surface knows of the call. The API's routes and
 * MCP's tool calls alike.
 */
export function callRecord(
  request: FastifyRequest, call: { route: string; deckId: string | null; status: number; durationMs: number; errorCode: string | null },
): CallRecord {
  const userAgent = request.headers['user-agent'];
  return {
    method: request.method,
    route: call.route,
    deckId: call.deckId,
    status: call.status,
    durationMs: call.durationMs,
    address: request.ip,
    userAgent: typeof userAgent === 'string' ? userAgent : null,
    requestId: String(request.id),
    errorCode: call.errorCode,
  };
}

type RouteHooks = Record<string, unknown>;

/**
 * Adds a hook to one route (from an onRoute hook), so work only some routes need is not an extra
 * hook on every request.
 */
export function addRouteHook(route: RouteHooks, name: 'onRequest' | 'preValidation' | 'preHandler' | 'onSend' | 'onResponse', hook: unknown): void {
  const existing = route[name];
  route[name] = existing === undefined ? [hook] : [...(Array.isArray(existing) ? (existing as unknown[]) : [existing]), hook];
}

/** RFC 6266: an ASCII name for every client, the exact one (RFC 8187) for those that read it. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/**
 * The CORS preflight of a path any origin may call (discovery documents, client registration):
 * `*`, the given methods, and the headers the browser asks for.
 */
export function anyOriginPreflight(app: FastifyInstance, path: string, methods: string): void {
  app.options(path, { schema: { hide: true } }, async (request, reply) => {
    const headers = request.headers['access-control-request-headers'];
    void reply.code(204).header('Access-Control-Allow-Origin', '*').header('Access-Control-Allow-Methods', methods)
      .header('Access-Control-Max-Age', '600');
    if (typeof headers === 'string') void reply.header('Access-Control-Allow-Headers', headers).header('Vary', 'Access-Control-Request-Headers');
    return reply.send();
  });
}
