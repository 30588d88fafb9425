// MCP clients for the tests: the official TypeScript clients (the 1.x SDK's and the 2.x
// @modelcontextprotocol/client, legacy, negotiating or pinned to 2026-07-28) over their Streamable
// HTTP transports, against a real server on a real port; every tool result is checked against the
// API operation the tool stands for, as the served OpenAPI document describes it (so the two
// surfaces cannot drift): a success's structuredContent against the operation's 2xx responses, an
// error's text (the API's envelope as JSON) against its error responses.
import assert from 'node:assert/strict';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, type VersionNegotiationMode } from '@modelcontextprotocol/client';
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
  get_card: ['get', '/decks/{deckId}/cards/{cardId}'],
  delete_card: ['delete', '/decks/{deckId}/cards/{cardId}'],
  move_card: ['post', '/decks/{deckId}/cards/{cardId}/move'],
  update_cards: ['patch', '/decks/{deckId}/cards'],
  list_due: ['get', '/reviews/due'],
  get_schedule: ['get', '/decks/{deckId}/schedule'],
  list_reviews: ['get', '/reviews'],
  delete_deck: ['delete', '/decks/{deckId}'],
  restore_deck: ['post', '/decks/{deckId}/restore'],
  list_trash: ['get', '/decks/trash'],
  export_deck_markdown: ['get', '/decks/{deckId}/markdown'],
  list_public_decks: ['get', '/public/decks'],
  get_public_deck: ['get', '/public/decks/{deckId}'],
  copy_public_deck: ['post', '/public/decks/{deckId}/copy'],
  // The connectors' shape (DECISIONS "MCP"): own arguments and results; errors as the operation's.
  search: ['get', '/search'],
  fetch: ['get', '/decks/{deckId}'],
};

/** The deck lifecycle, public deck and connector tools (test/surfaces/mcp/mcp-deck-tools.test.ts checks them). */
export const DECK_TOOLS = [
  'delete_deck', 'restore_deck', 'list_trash', 'export_deck_markdown', 'list_public_decks', 'get_public_deck', 'copy_public_deck', 'search', 'fetch',
];

/**
 * Tools whose success is a shape of their own (the operation answers 204 or a markdown document,
 * or the connectors' search and fetch): the shape each must have, checked in place of the
 * operation's success responses.
 */
export const OWN_RESULTS: Record<string, object> = {
  delete_deck: { type: 'object', required: ['deckId', 'deleted'], properties: { deckId: { type: 'string' }, deleted: { const: true } }, additionalProperties: false },
  export_deck_markdown: { type: 'object', required: ['deckId', 'version', 'markdown'], properties: { deckId: { type: 'string' }, version: { type: ['string', 'null'] }, markdown: { type: 'string' } }, additionalProperties: false },
  search: {
    type: 'object', required: ['results'], additionalProperties: false,
    properties: { results: { type: 'array', items: { type: 'object', required: ['id', 'title', 'url'], additionalProperties: false, properties: { id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string', format: 'uri' } } } } },
  },
  fetch: {
    type: 'object', required: ['id', 'title', 'text', 'url', 'metadata'], additionalProperties: false,
    properties: { id: { type: 'string' }, title: { type: 'string' }, text: { type: 'string' }, url: { type: 'string', format: 'uri' }, metadata: { type: 'object' } },
  },
};

/** What a tool result has, as both clients return it. */
export interface ToolResult {
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A tool result with the API body it carries: structuredContent, or the error envelope of its text. */
export type CheckedResult = ToolResult & { body: any };

type Operation = { responses: Record<string, { content?: Record<string, { schema: object }> }> };

/** The API body of a tool result, checked for the shape DECISIONS gives results and errors. */
export function bodyOf(tool: string, result: ToolResult): any {
  const [first, ...rest] = result.content;
  if (result.isError === true) {
    assert.equal(result.structuredContent, undefined, `${tool}: an error result carries no structuredContent`);
    assert.equal(rest.length, 0, `${tool}: an error result's one content is the envelope`);
    assert.equal(first?.type, 'text', `${tool}: an error result's content is text`);
    return JSON.parse(first.text ?? '');
  }
  assert.equal(first?.type, 'text', `${tool}: a result has its one-line text`);
  assert.ok(result.structuredContent !== undefined, `${tool}: a result has structuredContent`);
  return result.structuredContent;
}

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

  check(tool: string, result: ToolResult): CheckedResult {
    const [method, path] = TOOL_OPERATIONS[tool] ?? [];
    if (method === undefined || path === undefined) throw new Error(`no API operation for tool ${tool}`);
    const body = bodyOf(tool, result);
    const key = `${tool}:${result.isError === true}`;
    let validate = this.#compiled.get(key);
    if (validate === undefined) {
      const operation = this.#document.paths[path]?.[method];
      if (operation === undefined) throw new Error(`the OpenAPI document has no ${method} ${path}`);
      const own = result.isError === true ? undefined : OWN_RESULTS[tool];
      const schemas = own !== undefined ? [own] : Object.entries(operation.responses)
        .filter(([status]) => (Number(status) >= 400) === (result.isError === true))
        .map(([, response]) => response.content?.['application/json']?.schema)
        .filter((schema) => schema !== undefined);
      validate = this.#ajv.compile({ anyOf: schemas });
      this.#compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(`${tool}: the result does not match ${method.toUpperCase()} ${path}: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 400)}`);
    }
    (result.isError === true ? this.failed : this.succeeded).add(tool);
    return { ...result, body };
  }
}

/** Which official client: the 1.x SDK's, or 2.x's in its default (2025) mode, negotiating, or pinned. */
export type McpClientKind = 'v1' | 'v2' | 'v2-auto' | 'v2-2026-07-28';

/** The calls the suites make, as both client lines spell them. */
export interface McpClient {
  listTools(): Promise<{ tools: any[] }>;
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listResources(): Promise<{ resources: any[] }>;
  readResource(params: { uri: string }): Promise<{ contents: any[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: any[] }>;
  listPrompts(): Promise<{ prompts: any[] }>;
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ messages: any[] }>;
  getServerVersion(): { name: string } | undefined;
  getServerCapabilities(): Record<string, unknown> | undefined;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

export interface McpSession {
  client: McpClient;
  /** The protocol revision the client negotiated. */
  protocolVersion: string | undefined;
  /** Calls a tool, checks its result against its API operation, and returns it with its API body. */
  call(tool: string, args?: Record<string, unknown>): Promise<CheckedResult>;
  close(): Promise<void>;
}

export interface ConnectOptions {
  checker?: ToolResultChecker;
  headers?: Record<string, string>;
  client?: McpClientKind;
}

function connectClient(kind: McpClientKind, url: URL, headers: Record<string, string>): { client: McpClient; connect: () => Promise<void>; version: () => string | undefined } {
  const info = { name: 'flashdeck-test', version: '1.0.0' };
  if (kind === 'v1') {
    const client = new ClientV1(info);
    const transport = new TransportV1(url, { requestInit: { headers } });
    return { client, connect: () => client.connect(transport), version: () => transport.protocolVersion };
  }
  const mode: VersionNegotiationMode = kind === 'v2' ? 'legacy' : kind === 'v2-auto' ? 'auto' : { pin: '2026-07-28' };
  const client = new ClientV2(info, { versionNegotiation: { mode } });
  const transport = new TransportV2(url, { requestInit: { headers } });
  return { client, connect: () => client.connect(transport), version: () => client.getNegotiatedProtocolVersion() ?? transport.protocolVersion };
}

export async function connectMcp(server: TestServer, token: string, options: ConnectOptions = {}): Promise<McpSession> {
  const headers = { authorization: `Bearer ${token}`, 'user-agent': 'mcp-test/1.0', ...options.headers };
  const { client, connect, version } = connectClient(options.client ?? 'v1', new URL(`${server.url}/mcp`), headers);
  await connect();
  return {
    client,
    protocolVersion: version(),
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args }) as ToolResult;
      return options.checker === undefined ? { ...result, body: bodyOf(tool, result) } : options.checker.check(tool, result);
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
