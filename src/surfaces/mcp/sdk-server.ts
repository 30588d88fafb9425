// The SDK's own server and stateless transport behind POST /mcp, kept warm: a Server is built with
// its handlers once and serves one request at a time, the transport is new for every request (the
// SDK refuses to reuse a stateless one). Building a Server and registering its handlers cost 35
// to 44 µs per request, and its garbage more (docs/mcp.md "Figures").
//
// A Server holds no state of a request once its transport is closed (the protocol clears its
// request maps), and the handlers read the request they serve from their slot when they start, so
// nothing of one request reaches another. The one thing a Server keeps is what the last
// `initialize` said about its client (capabilities, name): it is read only to send requests to the
// client, which this server never does.
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema, ListToolsRequestSchema, McpError, ReadResourceRequestSchema, type ListToolsResult, type Resource,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import { INSTRUCTIONS } from './descriptions.ts';
import { DECK_PROMPT, deckPrompt, type Guide } from './guides.ts';
import { callTool, type CallContext } from './tool-calls.ts';
import type { Tool } from './tools.ts';

const SERVER_INFO = { name: 'flashdeck', title: 'Flashdeck', version: '1.0.0' };

/** Idle servers kept for the next requests; more are built while more requests are in flight. */
const MAX_IDLE = 64;

export interface SdkServerOptions {
  tools: ReadonlyMap<string, Tool>;
  toolList: ListToolsResult;
  guides: ReadonlyMap<string, Guide>;
  resources: Resource[];
  /** The endpoint's URL, as the transport reads it from the request. */
  endpoint: string;
}

interface Slot {
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server, see build()
  readonly server: Server;
  /** The request this server is serving, null while idle. */
  call: CallContext | null;
}

function callOf(slot: Slot): CallContext {
  if (slot.call === null) throw new Error('an MCP server handled a message outside a request');
  return slot.call;
}

/** Runs one POST's JSON-RPC message(s) through the SDK; its response as the transport made it. */
export type SdkHandler = (call: CallContext, request: FastifyRequest) => Promise<Response>;

export function sdkServer(options: SdkServerOptions): SdkHandler {
  const { tools, toolList, guides, resources, endpoint } = options;
  // One validator for every server (each would otherwise build its own Ajv).
  const jsonSchemaValidator = new AjvJsonSchemaValidator();
  const idle: Slot[] = [];
  const toolListBytes = Buffer.from(JSON.stringify(toolList));

  function build(): Slot {
    // The low-level Server takes tool schemas as JSON Schema, which the API's TypeBox schemas are;
    // McpServer wants zod schemas. It is the SDK's protocol all the same.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    });
    const slot: Slot = { server, call: null };
    // The same 260 KB for every request: serialised once, sent as those bytes (embeds.ts).
    server.setRequestHandler(ListToolsRequestSchema, () => callOf(slot).embeds.embed(toolListBytes, false) as unknown as ListToolsResult);
    server.setRequestHandler(CallToolRequestSchema, async (rpc) => {
      const call = callOf(slot);
      const tool = tools.get(rpc.params.name);
      if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${rpc.params.name.slice(0, 100)}`);
      return callTool(call, tool, rpc.params.arguments ?? {});
    });
    server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources }));
    // The resources capability covers templates too: this server has none (an SDK client asking got -32601).
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
    server.setRequestHandler(ReadResourceRequestSchema, (rpc) => {
      const guide = guides.get(rpc.params.uri);
      if (guide === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${rpc.params.uri.slice(0, 200)}`);
      return { contents: [{ uri: guide.uri, mimeType: guide.mimeType, text: guide.text }] };
    });
    server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [DECK_PROMPT] }));
    server.setRequestHandler(GetPromptRequestSchema, (rpc) => {
      if (rpc.params.name !== DECK_PROMPT.name) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${rpc.params.name.slice(0, 100)}`);
      const args = rpc.params.arguments ?? {};
      const missing = DECK_PROMPT.arguments?.find((a) => a.required === true && (args[a.name] ?? '').trim() === '');
      if (missing !== undefined) throw new McpError(ErrorCode.InvalidParams, `The ${missing.name} argument is required`);
      return deckPrompt(args, guides);
    });
    return slot;
  }

  /**
   * Closing the transport detaches it from the server. Done after the current turn of the event
   * loop: the protocol's bookkeeping of the request it answered runs in microtasks after the
   * answer, and a close before it would abort the finished request's signal for nothing.
   */
  function release(slot: Slot, transport: WebStandardStreamableHTTPServerTransport): void {
    setImmediate(() => {
      slot.call = null;
      // The close makes an McpError ("Connection closed") for requests still waiting on the client,
      // and there are none (this server sends the client no request): without its stack trace a
      // close costs 1.4 µs instead of 7. The close runs synchronously: nothing else sees the limit.
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      try {
        // A server whose transport did not close at once is dropped, not reused.
        transport.close().catch(() => {});
      } finally {
        Error.stackTraceLimit = limit;
      }
      if (slot.server.transport === undefined && idle.length < MAX_IDLE) idle.push(slot);
    });
  }

  return async function handle(call: CallContext, request: FastifyRequest): Promise<Response> {
    const slot = idle.pop() ?? build();
    slot.call = call;
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await slot.server.connect(transport);
      return await transport.handleRequest(webRequest(endpoint, request), { parsedBody: request.body });
    } finally {
      release(slot, transport);
    }
  };
}

const FORWARDED = ['accept', 'content-type', 'mcp-protocol-version'] as const;

/**
 * The request as the transport reads it: method, URL and the headers it checks (the body is handed
 * over parsed). Measured: an undici Request (and its Headers) was a sixth of a tool call's cost,
 * and the transport reads nothing else of it (test/mcp/ covers every path it takes).
 */
function webRequest(url: string, request: FastifyRequest): Request {
  const headers = new Map<string, string>();
  for (const name of FORWARDED) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  const view = { get: (name: string) => headers.get(name.toLowerCase()) ?? null, entries: () => headers.entries() };
  return { method: 'POST', url, headers: view } as unknown as Request;
}
