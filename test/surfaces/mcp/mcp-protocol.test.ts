// The MCP endpoint's HTTP and JSON-RPC rules (DECISIONS "MCP"), as raw requests show them: every
// protocol revision from 2025-03-26 to 2026-07-28 negotiates; Accept naming only JSON (or */*)
// gets JSON; responses are compressed per Accept-Encoding; batches are answered only under
// 2025-03-26, at most 10 messages, message by message; browser origins are those of PUBLIC_URL and
// MCP_ALLOWED_ORIGINS, and the protected-resource metadata is readable from any origin.
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { before, describe, test } from 'node:test';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { largestDeckBody } from '../../helpers/fixtures.ts';
import { INITIALIZE, rawMcp, TOOL_OPERATIONS } from '../../helpers/mcp.ts';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';
const APP_ORIGIN = 'https://agent.example.org';

const rpc = (id: number, method: string, params?: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
const getDeck = (id: number, deckId: string) => rpc(id, 'tools/call', { name: 'get_deck', arguments: { deckId } });

/** Reads a response to its end, counting its bytes without keeping them. */
async function drain(res: Response): Promise<number> {
  let bytes = 0;
  for await (const chunk of res.body ?? []) bytes += (chunk as Uint8Array).byteLength;
  return bytes;
}

describe('MCP protocol', () => {
  let deckId: string;
  const auth = () => ({ authorization: `Bearer ${suite.user.token}` });

  const suite = buildForSuite({ env: { PUBLIC_URL, MCP_ALLOWED_ORIGINS: `${APP_ORIGIN}, http://localhost:6274` }, socket: true });
  before(async () => {
    ({ deckId } = await createDeck(suite.server, suite.user.token, 3));
  });

  test('should negotiate every 2025 revision by initialize, and offer 2026-07-28 through server/discover', async () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      const res = await rawMcp(suite.server, { ...INITIALIZE, params: { ...INITIALIZE.params, protocolVersion: version } }, auth());
      assert.equal(res.status, 200, version);
      assert.equal(((await res.json()) as any).result.protocolVersion, version);
    }
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const discover = await rawMcp(suite.server, rpc(1, 'server/discover', { _meta: meta }), { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' });
    assert.equal(discover.status, 200);
    const result = ((await discover.json()) as any).result;
    assert.ok(result.supportedVersions.includes('2026-07-28'));
    assert.equal(result._meta['io.modelcontextprotocol/serverInfo'].name, 'flashdeck');
  });

  test('should answer JSON to an Accept naming only application/json, */* or nothing, and 406 to one that takes no JSON', async () => {
    const list = rpc(2, 'tools/list');
    for (const accept of ['application/json', '*/*', 'application/*', null]) {
      const headers: Record<string, string> = { ...auth(), 'mcp-protocol-version': '2025-06-18' };
      const res = await fetch(`${suite.server.url}/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...(accept === null ? {} : { accept }) }, body: JSON.stringify(list) });
      assert.equal(res.status, 200, `Accept: ${accept ?? '(none)'}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(((await res.json()) as any).result.tools.length, Object.keys(TOOL_OPERATIONS).length);
    }
    const html = await rawMcp(suite.server, list, { ...auth(), accept: 'text/html' });
    assert.equal(html.status, 406);
    assert.equal(((await html.json()) as any).error.code, -32000);
  });

  test('should compress a response per Accept-Encoding (brotli, gzip, none), as the API does', async () => {
    const list = rpc(3, 'tools/list');
    const plain = await rawMcp(suite.server, list, { ...auth(), 'accept-encoding': 'identity' });
    assert.equal(plain.headers.get('content-encoding'), null);
    const text = await plain.text();
    for (const [encoding, decode] of [['br', brotliDecompressSync], ['gzip', gunzipSync]] as const) {
      const res = await rawMcp(suite.server, list, { ...auth(), 'accept-encoding': encoding });
      assert.equal(res.headers.get('content-encoding'), encoding);
      const body = Buffer.from(await new Response(res.body).arrayBuffer());
      // fetch decodes what it was sent; a body it did not decode is decoded here.
      const decoded = body.toString('utf8').startsWith('{') ? body.toString('utf8') : decode(body).toString('utf8');
      assert.deepEqual(JSON.parse(decoded), JSON.parse(text), encoding);
    }
  });

  test('should answer a 2025-03-26 batch message by message, and refuse one under a later revision', async () => {
    const batch = [getDeck(1, deckId), rpc(2, 'tools/list'), { jsonrpc: '2.0', method: 'notifications/initialized' }, getDeck(3, 'dck_nope')];
    const res = await rawMcp(suite.server, batch, auth());
    assert.equal(res.status, 200);
    const answers = (await res.json()) as any[];
    assert.deepEqual(answers.map((a) => a.id), [1, 2, 3], 'one answer per request, none for the notification');
    assert.deepEqual(answers[0].result.structuredContent, (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body);
    assert.equal(answers[1].result.tools.length, Object.keys(TOOL_OPERATIONS).length);
    assert.equal(JSON.parse(answers[2].result.content[0].text).error.code, 'DECK_NOT_FOUND');
    const stated = await rawMcp(suite.server, batch, { ...auth(), 'mcp-protocol-version': '2025-03-26' });
    assert.equal(stated.status, 200);

    for (const version of ['2025-06-18', '2025-11-25']) {
      const refused = await rawMcp(suite.server, batch, { ...auth(), 'mcp-protocol-version': version });
      assert.equal(refused.status, 400, version);
      assert.equal(((await refused.json()) as any).error.code, -32600);
    }
    const notifications = await rawMcp(suite.server, [{ jsonrpc: '2.0', method: 'notifications/initialized' }], auth());
    assert.equal(notifications.status, 202);
    for (const bad of [[], [INITIALIZE, rpc(2, 'tools/list')]]) {
      const refused = await rawMcp(suite.server, bad, auth());
      assert.equal(refused.status, 400, JSON.stringify(bad).slice(0, 80));
      assert.equal(((await refused.json()) as any).error.code, -32600);
    }
  });

  test('should send a deck read as the API\'s own bytes, alone and in a batch, whatever the deck\'s text holds', async () => {
    // The result's bytes stand in for the deck until the SDK has written its answer
    // (body-stand-ins.ts): a deck whose text spells the stand-in out, quotes and all, is still itself.
    const lookalike = '{"flashdeck:held-body":"0-0"} ,"cards":[';
    const { deckId: tricky } = await createDeck(suite.server, suite.user.token, 2, `Deck ${lookalike}`);
    const api = await fetch(`${suite.server.url}/api/v1/decks/${tricky}`, { headers: { ...auth(), 'accept-encoding': 'identity' } });
    const apiText = await api.text();

    const single = await rawMcp(suite.server, getDeck(7, tricky), { ...auth(), 'mcp-protocol-version': '2025-06-18', 'accept-encoding': 'identity' });
    assert.equal(single.status, 200);
    const text = await single.text();
    assert.ok(text.includes(`"structuredContent":${apiText}`), 'the API body, byte for byte');
    const answer = JSON.parse(text);
    assert.equal(answer.id, 7);
    assert.deepEqual(answer.result.structuredContent, JSON.parse(apiText));
    assert.ok((answer.result.content[0].text as string).includes(JSON.stringify(`Deck ${lookalike}`)), 'the summary names the deck as it is titled');

    const batch = await rawMcp(suite.server, [getDeck(1, tricky), rpc(2, 'tools/list'), getDeck(3, tricky)], { ...auth(), 'accept-encoding': 'identity' });
    assert.equal(batch.status, 200);
    const answers = (await batch.json()) as any[];
    assert.deepEqual(answers.map((a) => a.id), [1, 2, 3]);
    for (const i of [0, 2]) assert.deepEqual(answers[i].result.structuredContent, JSON.parse(apiText), `message ${i + 1}`);
    assert.equal(answers[1].result.tools.length, Object.keys(TOOL_OPERATIONS).length);
  });

  test('should refuse a batch of 100 get_deck calls on the largest deck, answer the largest allowed one within its size, and one call on it byte for byte, compressed or not', async () => {
    const imported = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: largestDeckBody() });
    assert.equal(imported.status, 201, imported.text.slice(0, 300));
    const largest = imported.body.deckId as string;
    const apiBytes = await drain(await fetch(`${suite.server.url}/api/v1/decks/${largest}`, { headers: { ...auth(), 'accept-encoding': 'identity' } }));

    const hundred = await rawMcp(suite.server, Array.from({ length: 100 }, (_, i) => getDeck(i, largest)), { ...auth(), 'accept-encoding': 'identity' });
    assert.equal(hundred.status, 400);
    const refusal = await hundred.text();
    assert.ok(refusal.length < 1000, 'refused whole, before any call');
    assert.match(refusal, /at most 10 messages/);
    assert.equal(((await rawMcp(suite.server, Array.from({ length: 11 }, (_, i) => rpc(i, 'tools/list')), auth())).status), 400, 'eleven');

    const ten = await rawMcp(suite.server, Array.from({ length: 10 }, (_, i) => getDeck(i, largest)), { ...auth(), 'accept-encoding': 'identity' });
    assert.equal(ten.status, 200);
    const bytes = await drain(ten);
    // Each answer is the deck (the API's body, escaped once more inside nothing: structuredContent
    // is an object) and its framing; ten of them and no more.
    assert.ok(bytes >= 10 * apiBytes, `${bytes} bytes for ten decks of ${apiBytes}`);
    assert.ok(bytes <= 10 * (apiBytes + 2048), `${bytes} bytes for ten decks of ${apiBytes}`);

    // One call on its own: the deck's held bytes are written as they are, compressed or not.
    const apiText = await (await fetch(`${suite.server.url}/api/v1/decks/${largest}`, { headers: { ...auth(), 'accept-encoding': 'identity' } })).text();
    for (const encoding of ['identity', 'gzip']) {
      const one = await rawMcp(suite.server, getDeck(5, largest), { ...auth(), 'mcp-protocol-version': '2025-06-18', 'accept-encoding': encoding });
      assert.equal(one.status, 200, encoding);
      assert.equal(one.headers.get('content-encoding') ?? 'identity', encoding);
      const text = await one.text(); // fetch decompresses
      assert.ok(text.includes(`"structuredContent":${apiText}}`), `${encoding}: the API body, byte for byte`);
      assert.equal((JSON.parse(text)).id, 5, encoding);
    }
  });

  test('should refuse a foreign Origin with 403 and answer the allowed ones, preflight included', async () => {
    const list = rpc(4, 'tools/list');
    for (const origin of [PUBLIC_URL, APP_ORIGIN, 'http://localhost:6274']) {
      const preflight = await fetch(`${suite.server.url}/mcp`, {
        method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, mcp-protocol-version' },
      });
      assert.equal(preflight.status, 204, origin);
      assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
      assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /mcp-protocol-version/);
      const call = await rawMcp(suite.server, list, { ...auth(), origin });
      assert.equal(call.status, 200, origin);
      assert.equal(call.headers.get('access-control-allow-origin'), origin);
      assert.match(call.headers.get('access-control-expose-headers') ?? '', /WWW-Authenticate/);
    }
    for (const origin of ['https://evil.example', 'https://agent.example.org.evil.example', 'null']) {
      const preflight = await fetch(`${suite.server.url}/mcp`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      assert.equal(preflight.status, 403, origin);
      assert.equal(preflight.headers.get('access-control-allow-origin'), null);
      const call = await rawMcp(suite.server, list, { ...auth(), origin });
      assert.equal(call.status, 403, origin);
      assert.equal(((await call.json()) as any).error.data.error.code, 'FORBIDDEN');
    }
  });

  test('should let any origin read the protected-resource metadata', async () => {
    for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
      const read = await fetch(`${suite.server.url}${path}`, { headers: { origin: 'https://anywhere.example' } });
      assert.equal(read.status, 200, path);
      assert.equal(read.headers.get('access-control-allow-origin'), '*', path);
      const preflight = await fetch(`${suite.server.url}${path}`, {
        method: 'OPTIONS', headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'mcp-protocol-version' },
      });
      assert.equal(preflight.status, 204, path);
      assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
      assert.equal(preflight.headers.get('access-control-allow-headers'), 'mcp-protocol-version');
    }
  });

  test('should take MCP_ALLOWED_ORIGINS as comma-separated origins and refuse anything else', () => {
    assert.deepEqual(loadConfig({ MCP_ALLOWED_ORIGINS: 'https://a.example, http://localhost:6274/' }).mcpAllowedOrigins, ['https://a.example', 'http://localhost:6274']);
    assert.deepEqual(loadConfig({}).mcpAllowedOrigins, []);
    for (const bad of ['https://a.example/path', 'a.example', 'ftp://a.example', '*']) {
      assert.throws(() => loadConfig({ MCP_ALLOWED_ORIGINS: bad }), (error) => error instanceof ConfigError && error.message.includes('MCP_ALLOWED_ORIGINS'), bad);
    }
  });
});
