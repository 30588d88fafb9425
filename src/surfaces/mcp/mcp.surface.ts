// The MCP server at {PUBLIC_URL}/mcp (DECISIONS "MCP"): Streamable HTTP, stateless, as one
// encapsulated plugin owning its JSON parsing (the API's body limit and hostile-key guard), its
// errors (JSON-RPC errors with the API's envelope in `data`), its 404, Origin and CORS rules and its
// compression. Each POST is authenticated once (401 names this resource's metadata and the default
// scopes), a tool call an OAuth token lacks the scope for is refused with 403 (step-up), and the
// rest is the SDK's (mcp-server.ts), each tool call going through the per-call policy (tool-calls.ts).
import compress from '@fastify/compress';
import cors from '@fastify/cors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import Negotiator from 'negotiator';
import type { ServiceContext } from '../../context.ts';
import { AppError, envelope } from '../../errors.ts';
import { callRecord, RESPONSE_COMPRESSION, soleHeader } from '../http.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import { OAUTH_SCOPES } from '../../modules/identity/scopes.ts';
import { protectedResource, type Policy } from '../../policy/policy.ts';
import { isPromise } from '../../promise.ts';
import { API_PLUGIN, type ApiRoute } from '../api/api.surface.ts';
import { loadOnce } from '../../load-once.ts';
import { loggedAppError, withErrorHeaders } from '../errors.ts';
import { parseJsonText } from '../json-text.ts';
import { ROOT_PLUGIN } from '../root.ts';
import { BodyStandIns } from './body-stand-ins.ts';
import { loadGuides } from './guides.ts';
import { stepUpRefusal, type CallContext } from './tool-calls.ts';
import { buildTools } from './tools.ts';

export const MCP_PREFIX = '/mcp';
export const MCP_PLUGIN = 'flashdeck-mcp';
const JSON_TYPE = 'application/json; charset=utf-8';
/** JSON-RPC 2.0's "Parse error" (the SDK's ErrorCode.ParseError), for a body refused before the SDK reads it. */
const JSONRPC_PARSE_ERROR = -32700;
/** The code the SDK's transport gives server errors it answers itself ("Server error" range). */
const SERVER_ERROR = -32000;

/** The MCP endpoint as an OAuth protected resource of its own (RFC 9728). */
export function mcpResource(publicUrl: string) {
  const metadataPath = `/.well-known/oauth-protected-resource${MCP_PREFIX}`;
  return {
    // Its 401 names the default scopes (DECISIONS "MCP"), which an MCP client then asks for.
    resource: protectedResource(`${publicUrl}${MCP_PREFIX}`, `${publicUrl}${metadataPath}`, OAUTH_SCOPES),
    documentPaths: [metadataPath],
    document: {
      resource: `${publicUrl}${MCP_PREFIX}`,
      // The service's own authorization server issues its tokens (docs/oauth.md).
      authorization_servers: [publicUrl],
      // What a client may ask the authorization server for: the OAuth scopes (PATs carry more).
      scopes_supported: [...OAUTH_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Flashdeck MCP server',
      resource_documentation: `${publicUrl}/api/v1/docs`,
    },
  };
}

export interface McpSurfaceOptions {
  ctx: ServiceContext;
  policy: Policy;
  /** The API's routes by operationId: each tool's schemas and scope come from its route. */
  apiRoutes: ReadonlyMap<string, ApiRoute>;
  /** Browser origins besides PUBLIC_URL's that may call the endpoint (MCP_ALLOWED_ORIGINS). */
  allowedOrigins?: readonly string[];
}

/** A JSON-RPC error carrying the API's envelope, with the catalog status and headers. */
function rpcError(reply: FastifyReply, error: AppError, status = error.status, id: unknown = null): FastifyReply {
  const requestId = String(reply.request.id);
  const code = status === 400 ? JSONRPC_PARSE_ERROR : SERVER_ERROR;
  return withErrorHeaders(reply, error).code(status).type(JSON_TYPE).send(JSON.stringify({
    jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null,
    error: { code, message: error.message, data: envelope(error.code, error.message, error.details, requestId) },
  }));
}

/** The tool a request calls, for recording a refused call: `mcp:<tool>`, else `mcp`. */
function routeOf(body: unknown): string {
  const name = (body as { method?: unknown; params?: { name?: unknown } } | null)?.params?.name;
  return (body as { method?: unknown } | null)?.method === 'tools/call' && typeof name === 'string' ? `mcp:${name.slice(0, 100)}` : 'mcp';
}

/** What the SDK's 2025 transport asks of Accept (both types), when the client takes JSON at all. */
const SDK_ACCEPT = 'application/json, text/event-stream';
const ACCEPTED = ['application/json'];

/**
 * The request as the SDK reads it: its Accept (DECISIONS: naming only `application/json` or `*\/*`
 * gets JSON, which is what this server answers; the SDK's transport wants both types named), its
 * content type and MCP headers, and a signal that aborts when the client goes away.
 */
function webRequest(url: string, request: FastifyRequest, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if ((name === 'content-type' || name.startsWith('mcp-')) && typeof value === 'string') headers.set(name, value);
  }
  const accept = request.headers.accept;
  const json = new Negotiator({ headers: { accept } }).mediaType(ACCEPTED) !== undefined;
  headers.set('accept', json ? SDK_ACCEPT : accept ?? '');
  return new Request(url, { method: 'POST', headers, signal });
}

export const mcpSurface = fp<McpSurfaceOptions>(async (scope, { ctx, policy, apiRoutes, allowedOrigins = [] }) => {
  const { resource } = mcpResource(ctx.publicUrl);
  const endpointUrl = `${ctx.publicUrl}${MCP_PREFIX}`;
  const tools = buildTools(apiRoutes);
  const guides = await loadGuides();
  const origins = new Set([new URL(ctx.publicUrl).origin, ...allowedOrigins]);
  // The SDK (its servers, transports and zod schemas) is loaded by the first request, so an
  // instance nobody calls over MCP never holds it (docs/performance.md).
  const mcp = loadOnce(async () => (await import('./mcp-server.ts')).mcpEndpoint({ tools, guides }));

  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonText(body as string));
    } catch (error) {
      done(error as AppError, undefined);
    }
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    return rpcError(reply, loggedAppError(error, request));
  });
  scope.setNotFoundHandler((request, reply) => rpcError(reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)));
  // DNS rebinding and cross-site calls: a browser page of an origin not allowed never reaches a
  // tool, and its preflight is refused the same way.
  scope.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin;
    done(origin !== undefined && !origins.has(origin) ? new AppError('FORBIDDEN', `Origin ${origin.slice(0, 200)} may not call this server`) : undefined);
  });
  // Browser-based clients of the allowed origins (no cookies: bearer tokens only).
  await scope.register(cors, {
    origin: [...origins],
    methods: ['POST', 'GET', 'DELETE'],
    exposedHeaders: ['WWW-Authenticate', 'Mcp-Session-Id', 'MCP-Protocol-Version', 'RateLimit', 'RateLimit-Policy', 'Retry-After'],
    maxAge: 600,
  });
  await scope.register(compress, RESPONSE_COMPRESSION);

  async function authenticate(request: FastifyRequest): Promise<Principal> {
    // Awaited only when it is I/O (a token not cached): each await of a promise costs turns.
    const pending = policy.authenticateNow(soleHeader(request.raw, 'authorization'), request.ip, resource);
    const verification = isPromise(pending) ? await pending : pending;
    if (verification.refused === null) return verification.principal;
    // A revoked or expired token's refused call is still recorded under it, as the API's are.
    if (verification.principal !== null) {
      policy.record(verification.principal, callRecord(request, {
        route: routeOf(request.body), deckId: null, status: verification.refused.status, durationMs: 0, errorCode: verification.refused.code,
      }));
    }
    throw verification.refused;
  }

  scope.post('/', async (request, reply) => {
    const principal = await authenticate(request);
    const call: CallContext = { ctx, policy, resource, principal, request, rateLimit: null, bodies: new BodyStandIns() };
    const stepUp = stepUpRefusal(call, request.body, tools);
    if (stepUp !== null) return rpcError(reply, stepUp.error, stepUp.error.status, stepUp.id);

    const endpoint = mcp.loaded ?? await mcp.get();
    const gone = new AbortController();
    reply.raw.once('close', () => { if (!reply.raw.writableFinished) gone.abort(); });
    const answer = await endpoint(call, webRequest(endpointUrl, request, gone.signal), request.body);

    if (call.rateLimit !== null) reply.header('RateLimit-Policy', call.rateLimit.policy).header('RateLimit', call.rateLimit.state);
    reply.code(answer.status);
    for (const name of ['content-type', 'content-length', 'allow', 'cache-control']) {
      const value = answer.headers.get(name);
      if (value !== null) reply.header(name, value);
    }
    return reply.send(answer.body);
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    rpcError(reply.header('Allow', 'POST'), new AppError('METHOD_NOT_ALLOWED', 'This MCP server is stateless: send JSON-RPC with POST', { allowed: ['POST'] }));
  scope.get('/', notAllowed);
  scope.delete('/', notAllowed);
}, { name: MCP_PLUGIN, dependencies: [ROOT_PLUGIN, API_PLUGIN], encapsulate: true, fastify: '5.x' });
