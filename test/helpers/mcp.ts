// MCP clients for the tests: the SDK's own Client over its Streamable HTTP transport, against a
// real server on a real port; every tool result is checked against the API operation the tool
// stands for, as the served OpenAPI document describes it (so the two surfaces cannot drift).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { TestServer } from './server.ts';
import { inlineSchemaRefs } from './openapi.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/** Each tool and the API operation it stands for (DECISIONS "MCP"). */
export const TOOL_OPERATIONS: Record<string, [string, string]> = {
  whoami: ['get', '/whoami'],
  get_capacity: ['get', '/decks/capacity'],
  list_decks: ['get', '/decks'],
  get_deck: ['get', '/decks/{deckId}'],
  import_deck: ['post', '/decks/import'],
  append_cards: ['post', '/decks/{deckId}/cards'],
  update_deck: ['patch', '/decks/{deckId}'],
  update_card: ['patch', '/decks/{deckId}/cards/{cardId}'],
  start_review: ['post', '/reviews'],
  get_review: ['get', '/reviews/{sessionId}'],
  answer_card: ['post', '/reviews/{sessionId}/answers'],
  complete_review: ['post', '/reviews/{sessionId}/complete'],
};

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };

/** Validates tool results against their operation's documented responses; counts what it checked. */
export class ToolResultChecker {
  readonly #ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  readonly #document: { paths: Record<string, Record<string, Operation>> };
  readonly #compiled = new Map<string, ValidateFunction>();
  /** Tools with a successful result checked, and with an error result checked. */
  readonly succeeded = new Set<string>();
  readonly failed = new Set<string>();

  constructor(document: Record<string, unknown>) {
    this.#document = inlineSchemaRefs(document) as never;
  }

  check(tool: string, result: CallToolResult): void {
    const [method, path] = TOOL_OPERATIONS[tool] ?? [];
    if (method === undefined || path === undefined) throw new Error(`no API operation for tool ${tool}`);
    const key = `${tool}:${result.isError === true}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      const operation = this.#document.paths[path]?.[method];
      if (operation === undefined) throw new Error(`the OpenAPI document has no ${method} ${path}`);
      const schemas = Object.entries(operation.responses)
        .filter(([status]) => (Number(status) >= 400) === (result.isError === true))
        .map(([, response]) => response.content?.['application/json']?.schema)
        .filter((schema) => schema !== undefined);
      validate = this.#ajv.compile({ anyOf: schemas });
      this.#compiled.set(key, validate);
    }
    if (!validate(result.structuredContent)) {
      throw new Error(`${tool}: structuredContent does not match ${method.toUpperCase()} ${path}: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(result.structuredContent).slice(0, 400)}`);
    }
    (result.isError === true ? this.failed : this.succeeded).add(tool);
  }
}

export interface McpSession {
  client: Client;
  /** Calls a tool, checks its result against its API operation, and returns it. */
  call(tool: string, args?: Record<string, unknown>): Promise<CallToolResult & { structuredContent: any }>;
  close(): Promise<void>;
}

export async function connectMcp(server: TestServer, token: string, checker?: ToolResultChecker, headers: Record<string, string> = {}): Promise<McpSession> {
  const client = new Client({ name: 'flashdeck-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, 'user-agent': 'mcp-test/1.0', ...headers } },
  });
  await client.connect(transport);
  return {
    client,
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args }) as CallToolResult;
      if (!Array.isArray(result.content) || result.content[0]?.type !== 'text') throw new Error(`${tool}: no text summary`);
      checker?.check(tool, result);
      return result as CallToolResult & { structuredContent: any };
    },
    close: () => client.close(),
  };
}

/** One JSON-RPC POST to /mcp as a client would send it, for what the SDK's client hides (statuses, headers). */
export function rawMcp(server: TestServer, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0', id: 1, method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
