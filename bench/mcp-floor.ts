// The SDK's own cost of one tools/call, with no HTTP, no policy and no tool work: the floor under
// any MCP endpoint built on @modelcontextprotocol/sdk (issue 14's goal needs the whole MCP call
// within about 45 µs of the API read's CPU, docs/mcp.md "What is left").
//
//   npx node bench/mcp-floor.ts [CALLS]        (default 50000, after 5000 warm-up calls)
//
// Three ways through the SDK, each answering a get_deck-shaped tools/call with a prepared
// one-line result (no deck bytes, so the figure is per call, not per byte):
// - protocol: the SDK's `Server` connected once to an in-memory transport (the message handed
//   over parsed, the answer taken as an object): the JSON-RPC layer and the Server's request and
//   result schemas (zod) alone;
// - streamable: what src/surfaces/mcp/sdk-server.ts does per POST: a fresh
//   `WebStandardStreamableHTTPServerTransport` (stateless, JSON responses) connected to a reused
//   `Server`, handed the parsed body, its web `Response` read as text, the transport closed;
// - json: JSON.parse of the request text and JSON.stringify of the response (what any endpoint,
//   with or without the SDK, does).
// Printed: CPU µs per call (process.cpuUsage: the main thread and V8's GC helper threads, so the
// garbage each call leaves is in it), median of 5 rounds. Run with `npm start`'s flags
// (`--max-semi-space-size=4`) for the server's GC.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const CALLS = Number(process.argv[2] ?? 50_000);
const WARMUP = 5_000;
const REQUEST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_deck', arguments: { deckId: 'dck_0123456789abcdef' } } });
const RESULT = { content: [{ type: 'text' as const, text: 'Deck "Cells" (dck_0123456789abcdef, 250 cards)' }], structuredContent: { deckId: 'dck_0123456789abcdef' } };

// eslint-disable-next-line @typescript-eslint/no-deprecated -- the low-level Server, as sdk-server.ts
function server(): Server {
  // eslint-disable-next-line @typescript-eslint/no-deprecated
  const s = new Server({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  s.setRequestHandler(CallToolRequestSchema, () => RESULT);
  return s;
}

/** The SDK's Transport interface with nothing behind it: the answer resolves the caller. */
class MemoryTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #answer: ((message: JSONRPCMessage) => void) | null = null;
  async start(): Promise<void> {}
  async close(): Promise<void> {}
  async send(message: JSONRPCMessage): Promise<void> {
    this.#answer?.(message);
  }
  call(message: JSONRPCMessage): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.#answer = resolve;
      this.onmessage?.(message);
    });
  }
}

async function protocolWay(): Promise<() => Promise<unknown>> {
  const transport = new MemoryTransport();
  await server().connect(transport);
  return () => transport.call(JSON.parse(REQUEST) as JSONRPCMessage);
}

async function streamableWay(): Promise<() => Promise<unknown>> {
  const s = server();
  const headers = new Map([['accept', 'application/json, text/event-stream'], ['content-type', 'application/json'], ['mcp-protocol-version', '2025-06-18']]);
  const request = { method: 'POST', url: 'http://127.0.0.1/mcp', headers: { get: (n: string) => headers.get(n.toLowerCase()) ?? null, entries: () => headers.entries() } } as unknown as Request;
  return async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await s.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: JSON.parse(REQUEST) });
    const text = await response.text();
    await new Promise((resolve) => setImmediate(resolve));
    await transport.close();
    return text;
  };
}

async function jsonWay(): Promise<() => Promise<unknown>> {
  return async () => JSON.stringify({ jsonrpc: '2.0', id: (JSON.parse(REQUEST) as { id: number }).id, result: RESULT });
}

async function measure(call: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await call();
  const cpu = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await call();
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / CALLS;
}

const ways: Record<string, () => Promise<() => Promise<unknown>>> = { protocol: protocolWay, streamable: streamableWay, json: jsonWay };
const results: Record<string, number[]> = {};
for (let round = 0; round < 5; round++) {
  for (const [name, make] of Object.entries(ways)) (results[name] ??= []).push(await measure(await make()));
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
process.stdout.write(`SDK floor of one tools/call (${CALLS} calls x 5 rounds, Node ${process.version})\nway          CPU µs/call (median; rounds)\n`);
for (const [name, rounds] of Object.entries(results)) {
  process.stdout.write(`${name.padEnd(12)} ${median([...rounds]).toFixed(1).padStart(6)}  (${rounds.map((r) => r.toFixed(1)).join(', ')})\n`);
}
