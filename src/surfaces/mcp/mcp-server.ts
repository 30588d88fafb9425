// The MCP protocol behind POST /mcp, loaded by the first request (mcp.surface.ts): the official
// SDK's server (@modelcontextprotocol/server 2.x) in its stateless pattern, a fresh McpServer and
// transport for every request, the caller handed over as `authInfo`. We write no JSON-RPC.
//   - Revision 2026-07-28 (`server/discover`, the per-request `_meta` envelope): the SDK's
//     createMcpHandler, modern-only (`legacy: 'reject'`).
//   - Revisions 2025-03-26 to 2025-11-25 (the initialize handshake): the SDK's Streamable HTTP
//     transport, stateless (`sessionIdGenerator: undefined`) and answering JSON; a batch is taken
//     apart and answered one message after another (batches.ts).
// The SDK's own classifier (isLegacyRequest) decides which; createMcpHandler documents this
// composition for a server that keeps its own 2025 serving.
import { Readable } from 'node:stream';
import {
  createMcpHandler, fromJsonSchema, isLegacyRequest, McpServer, ProtocolError, ProtocolErrorCode, WebStandardStreamableHTTPServerTransport,
  type AuthInfo, type JsonSchemaValidator, type jsonSchemaValidator, type McpRequestContext, type ServerOptions,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import { batchAnswer, batchRefusal, isRequest } from './batches.ts';
import { INSTRUCTIONS } from './descriptions.ts';
import { DECK_PROMPT, deckPrompt, deckPromptRefusal, type Guide } from './guides.ts';
import { callTool, type CallContext } from './tool-calls.ts';
import type { Tool } from './tools.ts';

const SERVER_INFO = { name: 'flashdeck', title: 'Flashdeck', version: '1.0.0' };
const CAPABILITIES = { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } };

/**
 * Arguments are validated by the tool itself, with the API route's schemas and validators
 * (tool-schemas.ts), so a bad argument gets the API's error envelope (SCHEMA_INVALID with the field
 * path) as a tool error rather than the SDK's own message; the SDK is told to take them as they come.
 * The JSON Schemas it lists are the routes' all the same.
 */
const TAKEN_AS_SENT: jsonSchemaValidator = {
  getValidator<T>(): JsonSchemaValidator<T> {
    return (input) => ({ valid: true, data: input as T, errorMessage: undefined });
  },
};

export interface McpEndpointOptions {
  tools: ReadonlyMap<string, Tool>;
  guides: ReadonlyMap<string, Guide>;
}

/** What the SDK answered: status, headers, and the body (a batch's as a stream, read as it is sent). */
export interface McpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer | Readable | ReadableStream<Uint8Array> | null;
}

/** Serves one POST: `web` carries its headers (and abort signal), `body` its parsed JSON. */
export type McpEndpoint = (call: CallContext, web: Request, body: unknown) => Promise<McpAnswer>;

/** The caller, as the SDK carries it to the factory and the handlers. */
function authInfoOf(call: CallContext, message: unknown): AuthInfo {
  const { principal, resource } = call;
  return {
    token: principal.prefix, clientId: principal.credentialId, scopes: [...principal.scopes],
    resource: new URL(resource.resource), resourceMetadataUrl: resource.metadataUrl, extra: { call, message },
  };
}

function callerOf(authInfo: AuthInfo | undefined): { call: CallContext; message: unknown } {
  const call = authInfo?.extra?.call as CallContext | undefined;
  if (call === undefined) throw new Error('an MCP request reached the SDK without its caller');
  return { call, message: authInfo?.extra?.message };
}

/** The tool a message calls (`tools/call`), or undefined. */
function calledTool(message: unknown): unknown {
  const { method, params } = (message ?? {}) as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' ? params?.name : undefined;
}

/** A JSON answer's bytes, read whole (so the compression threshold sees its size), without a copy when they came in one piece. */
async function bytesOf(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  if (chunks.length !== 1) return Buffer.concat(chunks);
  const [only] = chunks as [Uint8Array];
  return Buffer.from(only.buffer, only.byteOffset, only.byteLength);
}

/** An answer up to this size is sent as one buffer; a larger one as its parts. */
const JOIN_AT_MOST = 1024 * 1024;

/** A JSON answer of the SDK's as parts, with the held bytes its results stood in for put in place. */
async function partsOf(call: CallContext, body: ReadableStream<Uint8Array>): Promise<Buffer[]> {
  return call.bodies.placed(await bytesOf(body));
}

async function answerOf(call: CallContext, response: Response): Promise<McpAnswer> {
  const { status, headers, body } = response;
  // An event stream (a 2026-07-28 subscriptions/listen, which this server acknowledges and ends) is
  // passed on as it comes.
  if (body === null || headers.get('content-type')?.startsWith('text/event-stream') === true) return { status, headers, body };
  const parts = await partsOf(call, body);
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  // A deck read: joined into one buffer when small (one write, cheaper than a stream), else written
  // as its parts, the held bytes without a copy (a large deck would be copied whole per call).
  if (parts.length === 1 || length <= JOIN_AT_MOST) return { status, headers, body: parts.length === 1 ? parts[0] : Buffer.concat(parts, length) };
  const sized = new Headers(headers);
  sized.set('content-length', String(length));
  return { status, headers: sized, body: Readable.from(parts, { objectMode: false }) };
}

export function mcpEndpoint({ tools, guides }: McpEndpointOptions): McpEndpoint {
  // One Ajv for every server (each would otherwise build its own): the SDK's default validator.
  const serverOptions: ServerOptions = { capabilities: CAPABILITIES, instructions: INSTRUCTIONS, jsonSchemaValidator: new AjvJsonSchemaValidator() };
  const schemaOf = (schema: Record<string, unknown>) => fromJsonSchema<Record<string, unknown>>(schema, TAKEN_AS_SENT);
  const registrations = [...tools.values()].map((tool) => ({
    tool,
    config: {
      title: tool.title,
      description: tool.description,
      inputSchema: schemaOf(tool.schemas.inputSchema),
      outputSchema: schemaOf(tool.schemas.outputSchema),
      annotations: { title: tool.title, ...tool.annotations },
    },
  }));
  const promptArgs = schemaOf(DECK_PROMPT.argsSchema);

  /**
   * The server for one message: the tools, resources and prompt, bound to its caller. A tool call
   * needs only its tool (the SDK answers an unknown one the same either way): registering the
   * rest, with the resources and the prompt, was a tenth of a get_deck's CPU.
   */
  function serverFor(call: CallContext, message: unknown): McpServer {
    const server = new McpServer(SERVER_INFO, serverOptions);
    const called = calledTool(message);
    const only = typeof called === 'string' ? registrations.find(({ tool }) => tool.name === called) : undefined;
    if (only !== undefined) {
      server.registerTool(only.tool.name, only.config, (args) => callTool(call, only.tool, args));
      return server;
    }
    for (const { tool, config } of registrations) server.registerTool(tool.name, config, (args) => callTool(call, tool, args));
    for (const guide of guides.values()) {
      const { uri, name, text, ...metadata } = guide;
      server.registerResource(name, uri, metadata, () => ({ contents: [{ uri, mimeType: guide.mimeType, text }] }));
    }
    const { name, title, description } = DECK_PROMPT;
    server.registerPrompt(name, { title, description, argsSchema: promptArgs }, (args) => {
      const refusal = deckPromptRefusal(args);
      if (refusal !== null) throw new ProtocolError(ProtocolErrorCode.InvalidParams, refusal);
      return deckPrompt(args as Partial<Record<string, string>>, guides);
    });
    return server;
  }

  const modern = createMcpHandler((context: McpRequestContext) => {
    const { call, message } = callerOf(context.authInfo);
    return serverFor(call, message);
  }, { legacy: 'reject' });

  /** One message of a 2025 revision, as the SDK's stateless example serves a request. */
  async function legacy(call: CallContext, web: Request, message: unknown): Promise<Response> {
    const server = serverFor(call, message);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(web, { parsedBody: message, authInfo: authInfoOf(call, message) });
    } finally {
      void transport.close().catch(() => {});
      void server.close().catch(() => {});
    }
  }

  async function batch(call: CallContext, web: Request, messages: readonly unknown[]): Promise<McpAnswer> {
    const headers = new Headers({ 'content-type': 'application/json' });
    const refusal = batchRefusal(messages, web.headers.get('mcp-protocol-version'));
    if (refusal !== null) {
      const error = { jsonrpc: '2.0', id: null, error: { code: refusal.code, message: refusal.message } };
      return { status: refusal.status, headers, body: Buffer.from(JSON.stringify(error)) };
    }
    // A batch whose client takes no JSON gets the SDK's own answer to that (406), once.
    if (!(web.headers.get('accept') ?? '').includes('application/json')) return answerOf(call, await legacy(call, web, messages[0]));
    const answers = messages.map((message) => async () => {
      const response = await legacy(call, web, message);
      return response.status === 202 || response.body === null ? null : partsOf(call, response.body);
    });
    if (!messages.some(isRequest)) {
      for (const answer of answers) await answer();
      return { status: 202, headers: new Headers(), body: null };
    }
    return { status: 200, headers, body: batchAnswer(answers) };
  }

  return async (call, web, body) => {
    if (!await isLegacyRequest(web, body)) return answerOf(call, await modern.fetch(web, { authInfo: authInfoOf(call, body), parsedBody: body }));
    if (Array.isArray(body)) return batch(call, web, body);
    return answerOf(call, await legacy(call, web, body));
  };
}
