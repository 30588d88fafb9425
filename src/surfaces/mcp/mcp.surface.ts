// The MCP server at {PUBLIC_URL}/mcp (DECISIONS "MCP"): Streamable HTTP, stateless, with the SDK's
// own server and transport (no JSON-RPC of ours), as one encapsulated plugin owning its JSON
// parsing (the API's body limit and hostile-key guard), its errors (JSON-RPC errors with the API's
// envelope in `data`) and its 404. Each POST is authenticated once (401 names this resource's
// metadata); each tool call then goes through the per-call policy (tool-calls.ts).
import { randomBytes } from 'node:crypto';
import type { ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceContext } from '../../context.ts';
import { AppError, envelope } from '../../errors.ts';
import { soleHeader } from '../http.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import { OAUTH_SCOPES } from '../../modules/identity/scopes.ts';
import { protectedResource, type Policy } from '../../policy/policy.ts';
import { isPromise } from '../../promise.ts';
import { API_PLUGIN, type ApiRoute } from '../api/api.surface.ts';
import { logFailure, toAppError } from '../errors.ts';
import { parseJsonText } from '../json-text.ts';
import { ROOT_PLUGIN } from '../root.ts';
import { Embeds } from './embeds.ts';
import { loadGuides } from './guides.ts';
import type { SdkHandler } from './sdk-server.ts';
import type { CallContext } from './tool-calls.ts';
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
    resource: protectedResource(`${publicUrl}${MCP_PREFIX}`, `${publicUrl}${metadataPath}`),
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
}

/** A JSON-RPC error carrying the API's envelope, with the catalog status and headers. */
function rpcError(reply: FastifyReply, error: AppError, status = error.status): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  const code = status === 400 ? JSONRPC_PARSE_ERROR : SERVER_ERROR;
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify({
    jsonrpc: '2.0', id: null, error: { code, message: error.message, data: envelope(error.code, error.message, error.details) },
  }));
}

/** The tool a request calls, for recording a refused call: `mcp:<tool>`, else `mcp`. */
function routeOf(body: unknown): string {
  const name = (body as { method?: unknown; params?: { name?: unknown } } | null)?.params?.name;
  return (body as { method?: unknown } | null)?.method === 'tools/call' && typeof name === 'string' ? `mcp:${name.slice(0, 100)}` : 'mcp';
}

export const mcpSurface = fp<McpSurfaceOptions>(async (scope, { ctx, policy, apiRoutes }) => {
  const { resource } = mcpResource(ctx.publicUrl);
  const tools = buildTools(apiRoutes);
  const guides = await loadGuides();
  const toolList: ListToolsResult = {
    tools: [...tools.values()].map((t) => ({
      name: t.name, title: t.title, description: t.description, inputSchema: t.schemas.inputSchema,
      outputSchema: t.schemas.outputSchema, annotations: { title: t.title, ...t.annotations },
    })),
  };
  const resources = [...guides.values()].map(({ text: _text, ...meta }) => meta);
  const allowedOrigin = new URL(ctx.publicUrl).origin;
  // The SDK (its server, transport and zod schemas: about 7 MB of heap and 25 MB of RSS) is loaded
  // by the first request, so an instance nobody calls over MCP never holds it (docs/performance.md).
  // Once loaded, the handler is called without awaiting the load again (a turn of the event loop
  // on every call).
  let loaded: SdkHandler | null = null;
  let loading: Promise<SdkHandler> | null = null;
  const load = (): Promise<SdkHandler> => loading ??= import('./sdk-server.ts').then(
    ({ sdkServer }) => loaded = sdkServer({ tools, toolList, guides, resources, endpoint: `${ctx.publicUrl}${MCP_PREFIX}` }),
    (error: unknown) => { loading = null; throw error; },
  );
  // Deck reads and the tool list are sent as bytes serialised once (embeds.ts).
  const nonce = randomBytes(18).toString('base64url');

  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonText(body as string));
    } catch (error) {
      done(error as AppError, undefined);
    }
  });
  scope.setErrorHandler((error: FastifyError, request, reply) => {
    const appError = toAppError(error, request);
    logFailure(request, error, appError);
    return rpcError(reply, appError);
  });
  scope.setNotFoundHandler((request, reply) => rpcError(reply, new AppError('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`)));
  // DNS rebinding and cross-site calls: a browser page of another origin never reaches a tool.
  scope.addHook('onRequest', (request, _reply, done) => {
    const origin = request.headers.origin;
    done(origin !== undefined && origin !== allowedOrigin ? new AppError('FORBIDDEN', `Origin ${origin.slice(0, 200)} may not call this server`) : undefined);
  });

  async function authenticate(request: FastifyRequest): Promise<Principal> {
    // Awaited only when it is I/O (a token not cached): each await of a promise costs turns.
    const pending = policy.authenticateNow(soleHeader(request.raw, 'authorization'), request.ip, resource);
    const verification = isPromise(pending) ? await pending : pending;
    if (verification.refused === null) return verification.principal;
    // A revoked or expired token's refused call is still recorded under it, as the API's are.
    if (verification.principal !== null) {
      const userAgent = request.headers['user-agent'];
      policy.record(verification.principal, {
        method: request.method, route: routeOf(request.body), deckId: null, status: verification.refused.status,
        durationMs: 0, address: request.ip, userAgent: typeof userAgent === 'string' ? userAgent : null, requestId: String(request.id),
      });
    }
    throw verification.refused;
  }

  scope.post('/', async (request, reply) => {
    const principal = await authenticate(request);
    const call: CallContext = { ctx, policy, resource, principal, request, rateLimit: null, embeds: new Embeds(nonce) };
    const handle = loaded ?? await load();
    const response = await handle(call, request);

    if (call.rateLimit !== null) reply.header('RateLimit-Policy', call.rateLimit.policy).header('RateLimit', call.rateLimit.state);
    reply.code(response.status);
    const type = response.headers.get('content-type');
    if (type !== null) reply.type(type);
    const allow = response.headers.get('allow');
    if (allow !== null) reply.header('Allow', allow);
    const text = await response.text();
    return call.embeds.empty ? reply.send(text) : call.embeds.send(reply, text);
  });

  // Stateless: no server-initiated stream (GET) and no session to end (DELETE).
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    rpcError(reply.header('Allow', 'POST'), new AppError('BAD_REQUEST', 'This MCP server is stateless: send JSON-RPC with POST'), 405);
  scope.get('/', notAllowed);
  scope.delete('/', notAllowed);
}, { name: MCP_PLUGIN, dependencies: [ROOT_PLUGIN, API_PLUGIN], encapsulate: true, fastify: '5.x' });
