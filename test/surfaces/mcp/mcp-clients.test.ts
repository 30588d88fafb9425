// The agent clients people use, as they run them, against a real server on a real port with a
// personal access token (DECISIONS "MCP"): the official TypeScript client 1.x and 2.x (its default,
// negotiating, and pinned to 2026-07-28) through to tool calls, the Inspector CLI with --strict,
// and mcp-remote over stdio with a token header through to tools/list. (The OAuth-driven variants
// of these clients live with the OAuth suites.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { connectMcp, TOOL_OPERATIONS, ToolResultChecker, type McpClientKind } from '../../helpers/mcp.ts';
import { ROOT } from '../../helpers/process.ts';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

const INSPECTOR = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'inspector', 'clients', 'launcher', 'build', 'index.js');
const MCP_REMOTE = path.join(ROOT, 'node_modules', 'mcp-remote', 'dist', 'proxy.js');

/** A home of its own for a client that keeps state there (the Inspector's catalog, mcp-remote's auth). */
function clientHome(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-mcp-client-'));
}

/** Runs the Inspector's CLI to its end: its exit code and what it printed. */
function inspector(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [INSPECTOR, '--cli', ...args], {
    cwd: ROOT, env: { ...process.env, HOME: home, NODE_TEST_CONTEXT: undefined }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}

describe('MCP clients in the wild (personal access token)', () => {
  let deckId: string;
  let checker: ToolResultChecker;
  const homes: string[] = [];

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    ({ deckId } = await createDeck(suite.server, suite.user.token, 3));
    checker = new ToolResultChecker(suite.server.app.apiDocument());
  });

  const clients: [McpClientKind, string, RegExp][] = [
    ['v1', 'the 1.x SDK client', /^2025-/],
    ['v2', 'the 2.x client in its default mode', /^2025-/],
    ['v2-auto', 'the 2.x client negotiating (server/discover)', /^2026-07-28$/],
    ['v2-2026-07-28', 'the 2.x client pinned to 2026-07-28', /^2026-07-28$/],
  ];
  for (const [kind, label, revision] of clients) {
    test(`should serve ${label} through to tool calls, results and errors`, async () => {
      const reader = await suite.server.token(suite.user.email, ['decks:read']);
      const mcp = await connectMcp(suite.server, reader.token, { client: kind, checker });
      try {
        assert.match(mcp.protocolVersion ?? '', revision, 'the revision negotiated');
        const { tools } = await mcp.client.listTools();
        assert.deepEqual(tools.map((t: { name: string }) => t.name).sort(), Object.keys(TOOL_OPERATIONS).sort());
        const who = await mcp.call('whoami');
        assert.equal(who.body.userId, suite.user.userId);
        const read = await mcp.call('get_deck', { deckId });
        assert.deepEqual(read.body, (await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body, 'the API body as structuredContent');
        const refused = await mcp.call('append_cards', { deckId, idempotencyKey: `clients-${kind}`, cards: [{ front: 'Q', back: 'A' }] });
        assert.equal(refused.isError, true);
        assert.deepEqual({ error: { ...refused.body.error, requestId: undefined } }, { error: { code: 'FORBIDDEN', message: 'This call needs the decks:write scope', requestId: undefined, details: { requiredScope: 'decks:write' } } },
          "a personal access token cannot step up: the tool error FORBIDDEN, the API's envelope as the text");
        const missing = await mcp.call('get_deck', { deckId: 'dck_nope' });
        assert.equal(missing.body.error.code, 'DECK_NOT_FOUND');
        const { resources } = await mcp.client.listResources();
        assert.equal(resources.length, 2);
      } finally {
        await mcp.close();
      }
    });
  }

  test('should pass the Inspector CLI with --strict, in each protocol era, and answer its tool call', async () => {
    const home = clientHome();
    homes.push(home);
    const common = [`${suite.server.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${suite.user.token}`, '--format', 'json'];
    for (const era of ['legacy', 'modern', 'auto']) {
      const list = await inspector([...common, '--protocol-era', era, '--method', 'tools/list', '--strict'], home);
      assert.equal(list.code, 0, `tools/list --strict (${era}) exited ${list.code}: ${list.stderr.slice(0, 2000)}`);
      // --format json wraps the result as { result } (and schema findings beside it, with --strict).
      const output = JSON.parse(list.stdout) as { result?: { tools: unknown[] }; tools?: unknown[]; schemaFindings?: unknown[] };
      assert.equal(output.schemaFindings, undefined, `${era}: no schema portability finding: ${JSON.stringify(output.schemaFindings)?.slice(0, 1000)}`);
      const tools = output.result?.tools ?? output.tools ?? [];
      assert.equal(tools.length, Object.keys(TOOL_OPERATIONS).length, era);
    }
    const call = await inspector([...common, '--protocol-era', 'modern', '--method', 'tools/call', '--tool-name', 'get_deck', '--tool-arg', `deckId=${deckId}`], home);
    assert.equal(call.code, 0, call.stderr.slice(0, 2000));
    const output = JSON.parse(call.stdout) as { result?: { structuredContent?: { id?: string } }; structuredContent?: { id?: string } };
    assert.equal((output.result ?? output).structuredContent?.id, deckId);
  });

  test('should serve mcp-remote over stdio with a token header through to tools/list', async () => {
    const home = clientHome();
    homes.push(home);
    const env: Record<string, string> = {};
    for (const [name, value] of Object.entries(process.env)) if (value !== undefined && name !== 'NODE_TEST_CONTEXT') env[name] = value;
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, `${suite.server.url}/mcp`, '--header', `Authorization:Bearer ${suite.user.token}`],
      env: { ...env, HOME: home, MCP_REMOTE_CONFIG_DIR: path.join(home, '.mcp-auth') },
      stderr: 'pipe',
    });
    let log = '';
    transport.stderr?.on('data', (chunk: Buffer) => { log += chunk.toString(); });
    const client = new Client({ name: 'stdio-agent', version: '1.0.0' });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), Object.keys(TOOL_OPERATIONS).sort(), log.slice(0, 2000));
    } finally {
      await client.close();
    }
  });
});
