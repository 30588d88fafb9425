// The MCP SDK (@modelcontextprotocol/server and its core, zod schemas and Ajv validator) is loaded
// by the first request to /mcp, not at start (src/surfaces/mcp/mcp.surface.ts): an instance nobody
// calls over MCP never holds it (docs/performance.md). Every module this process loads is recorded
// from before the app is imported (node:test runs each file in its own process), so a static import
// of the SDK anywhere under the app would show here.
import { registerHooks } from 'node:module';
import { test } from 'node:test';
import assert from 'node:assert/strict';

const loaded = new Set<string>();
registerHooks({
  load(url, context, nextLoad) {
    loaded.add(url);
    return nextLoad(url, context);
  },
});

const SDK = ['/node_modules/@modelcontextprotocol/server/', '/node_modules/@modelcontextprotocol/core/', '/src/surfaces/mcp/mcp-server.ts'];
const loadedSdk = () => SDK.filter((part) => [...loaded].some((url) => url.includes(part)));

// Imported here, after the hook above, so that the app's own imports are recorded.
const { buildForSuite } = await import('../../helpers/server.ts');
// A socket: /mcp is called with fetch.
const suite = buildForSuite({ socket: true });

test('should start and serve the API, and refuse an unauthenticated MCP call, without loading the SDK', async () => {
  assert.equal((await suite.server.api('GET', '/whoami', { token: suite.user.token })).status, 200);
  const refused = await fetch(`${suite.server.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  assert.equal(refused.status, 401);
  assert.deepEqual(loadedSdk(), []);
});

test('should load the SDK with the first authenticated MCP request and answer it', async () => {
  const res = await fetch(`${suite.server.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${suite.user.token}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-06-18' },
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
  });
  assert.equal(res.status, 200);
  assert.equal(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length, 28);
  assert.deepEqual(loadedSdk(), SDK);
});
