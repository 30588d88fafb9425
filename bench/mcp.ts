// The MCP endpoint (issues 14 and 22): get_deck over MCP (a JSON-RPC POST to /mcp, as the SDK's
// client sends it) against GET /decks/{id} over the API, same server and deck, in interleaved wrk
// rounds (req/s, p50, CPU per request); and tools/list, its size (raw, gzip) and latency, one
// request at a time.
import { gzipSync } from 'node:zlib';
import { median, percentile, round, timedRequest } from './measure.ts';
import type { DeckServer } from './reads.ts';
import { compare, type Comparison } from './throughput.ts';

export interface McpFigures extends Comparison {
  toolsList: { requests: number; p50Ms: number; p99Ms: number; bodyBytes: number; gzipBytes: number };
}

const REQUESTS = Number(process.env.BENCH_MCP_LIST_REQUESTS ?? 300);

function rpc(id: number, method: string, params?: object): string {
  return JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
}

/** The headers the SDK's client sends after initialize (besides Authorization). */
export const MCP_HEADERS = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };

/** A tools/call as a wrk request. */
export function mcpToolCall(name: string, args: Record<string, unknown>) {
  return { method: 'POST', body: rpc(1, 'tools/call', { name, arguments: args }), contentType: 'application/json' };
}

/** A get_deck tools/call as a wrk request. */
export function mcpGetDeck(deckId: string) {
  return mcpToolCall('get_deck', { deckId });
}

export async function benchMcp(deck: DeckServer): Promise<McpFigures> {
  const url = `${deck.server.url}/mcp`;
  const headers = { ...deck.auth, ...MCP_HEADERS };
  const getDeck = mcpGetDeck(deck.deckId).body;
  // wrk counts only non-2xx responses as failures, and a tool's error is a 200: check one first.
  const probe = await timedRequest(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: getDeck });
  const api = await timedRequest(`${deck.server.url}${deck.deckPath}`, { headers: deck.auth });
  const result = (JSON.parse(probe.body) as { result?: { structuredContent?: unknown; isError?: boolean } }).result;
  if (probe.status !== 200 || result?.isError === true || JSON.stringify(result?.structuredContent) !== JSON.stringify(JSON.parse(api.body))) {
    throw new Error(`MCP get_deck does not return the API's deck: ${probe.status} ${probe.body.slice(0, 200)}`);
  }
  const comparison = await compare('mcp',
    { label: 'MCP get_deck', url, headers, request: { method: 'POST', body: getDeck, contentType: 'application/json' }, servers: [deck.server] },
    { label: 'API GET /decks/{id}', url: `${deck.server.url}${deck.deckPath}`, headers: deck.auth, servers: [deck.server] });
  const list = rpc(2, 'tools/list');
  const times: number[] = [];
  let bodyBytes = 0;
  let gzipBytes = 0;
  for (let i = 0; i < REQUESTS; i++) {
    const res = await timedRequest(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: list });
    if (res.status !== 200) throw new Error(`tools/list: ${res.status} ${res.body.slice(0, 200)}`);
    bodyBytes = Buffer.byteLength(res.body);
    gzipBytes = gzipSync(res.body).length;
    if (i >= 20) times.push(res.ms); // the first calls warm the route up
  }
  return {
    ...comparison,
    toolsList: { requests: times.length, p50Ms: round(median(times), 3), p99Ms: round(percentile(times, 99), 3), bodyBytes, gzipBytes },
  };
}
