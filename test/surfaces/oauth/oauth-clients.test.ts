// Real clients with their default settings, as people run them, against a real server on a real
// port, the consent page clicked in Chromium: openid-client with its default (OpenID Connect)
// discovery through to an ID token; the official MCP SDK client's OAuth flow with a
// http://localhost redirect through to a tool call; mcp-remote's own flow (its browser step
// pointed at Chromium through BROWSER) through to tools/list over stdio. Also what the service
// makes of scopes it does not know, and the `prefix` whoami shows for an OAuth token.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as client from 'openid-client';
import type { Page } from 'playwright-core';
import { authorizationUrl, consentInBrowser, loopbackApp, PASSWORD, consentBrowserSuite } from '../../helpers/oauth.ts';
import { connectWithOauth, MemoryOauthProvider } from '../../helpers/mcp-oauth.ts';
import { browserSkipReason } from '../../helpers/browser.ts';
import { waitFor } from '../../scale/cluster.ts';

/** openid-client with its default discovery (OpenID Connect's), over plain http on loopback. */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the test server is plain http on loopback
const INSECURE_OIDC = { execute: [client.allowInsecureRequests] };
const ALL_FOUR = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write'];
const require = createRequire(import.meta.url);
const MCP_REMOTE = path.join(path.dirname(require.resolve('mcp-remote/package.json')), (require('mcp-remote/package.json') as { bin: Record<string, string> }).bin['mcp-remote'] ?? '');

describe('OAuth clients with their default settings', { skip: browserSkipReason() }, () => {
  let page: Page;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { userId: string; email: string };
  let signedIn = false;
  // Before the suite's hooks: closed first, while the server still answers.
  const suite = consentBrowserSuite((made) => ({ page, app, person } = made));

  /** The person's part: sign in (the first time), leave the boxes as they are, click Allow; where the browser went. */
  async function allow(url: URL, appPort = app.port): Promise<URL> {
    const callback = await consentInBrowser(page, url, person.email, 'Allow', { appPort, signIn: !signedIn });
    signedIn = true;
    return callback;
  }

  /** The consent page's checkboxes, by label, once it shows. */
  async function offeredScopes(url: URL): Promise<string[]> {
    await page.goto(url.href);
    if (!signedIn) {
      await page.getByLabel('Email').fill(person.email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      signedIn = true;
    }
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const boxes = page.getByRole('checkbox');
    const labels: string[] = [];
    for (let i = 0; i < await boxes.count(); i++) labels.push(await boxes.nth(i).getAttribute('value') ?? '');
    return labels;
  }

  test('should serve openid-client\'s default discovery and issue it an ID token for openid', async () => {
    // Default discovery is OpenID Connect's: {issuer}/.well-known/openid-configuration.
    const config = await client.dynamicClientRegistration(new URL(suite.server.url), { client_name: 'OIDC app', redirect_uris: [app.redirectUri] }, undefined, INSECURE_OIDC);
    assert.equal(config.serverMetadata().issuer, suite.server.url);
    assert.ok(config.serverMetadata().scopes_supported?.includes('openid'));
    assert.equal(config.clientMetadata().token_endpoint_auth_method, 'client_secret_basic');
    const nonce = client.randomNonce();
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'openid decks:read', resource, nonce });
    assert.deepEqual(await offeredScopes(auth.url), ['openid', 'decks:read']);
    const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), {
      pkceCodeVerifier: auth.verifier, expectedState: auth.state, expectedNonce: nonce, idTokenExpected: true,
    }, { resource });
    const claims = tokens.claims();
    assert.equal(claims?.sub, person.userId);
    assert.equal(claims?.iss, suite.server.url);
    assert.equal(claims?.aud, config.clientMetadata().client_id);
    // The access token's scope: openid is the ID token's.
    assert.equal(tokens.scope, 'decks:read');
    const whoami = await suite.server.api('GET', '/whoami', { token: tokens.access_token });
    assert.equal(whoami.status, 200);
    assert.deepEqual(whoami.body.scopes, ['decks:read']);
  });

  test('should issue no ID token when the person unticks openid', async () => {
    const config = await client.dynamicClientRegistration(new URL(suite.server.url), { redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' }, client.None(), INSECURE_OIDC);
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'openid decks:read', resource });
    const callback = await consentInBrowser(page, auth.url, person.email, 'Allow', { appPort: app.port, signIn: !signedIn, uncheck: ['openid'] });
    signedIn = true;
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal(tokens.id_token, undefined);
    assert.equal(tokens.scope, 'decks:read');
  });

  test('should drop scopes it does not know, and ask for the default four when none is left', async () => {
    const config = await client.dynamicClientRegistration(new URL(suite.server.url), { redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' }, client.None(), INSECURE_OIDC);
    const resource = `${suite.server.url}/api/v1`;
    for (const [asked, offered] of [
      ['profile', ALL_FOUR],
      ['profile email offline_access', ALL_FOUR],
      ['profile decks:read offline_access', ['decks:read']],
      ['openid', ['openid', ...ALL_FOUR]],
      ['decks:read decks:read  reviews:write', ['decks:read', 'reviews:write']],
    ] as const) {
      const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: asked, resource });
      assert.deepEqual(await offeredScopes(auth.url), offered, asked);
      const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
      assert.deepEqual(tokens.scope?.split(' ').filter((s) => s !== 'openid').sort(), offered.filter((s) => s !== 'openid').sort(), asked);
      assert.deepEqual((await suite.server.api('GET', '/whoami', { token: tokens.access_token })).body.scopes.sort(), offered.filter((s) => s !== 'openid').sort(), asked);
    }
  });

  test('should show as whoami\'s prefix of an OAuth token an identifier that holds none of the token, as a PAT shows its own prefix', async () => {
    const config = await client.dynamicClientRegistration(new URL(suite.server.url), { redirect_uris: [app.redirectUri], token_endpoint_auth_method: 'none' }, client.None(), INSECURE_OIDC);
    const resource = `${suite.server.url}/api/v1`;
    const prefixes: string[] = [];
    for (let i = 0; i < 2; i++) {
      const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
      const tokens = await client.authorizationCodeGrant(config, await allow(auth.url), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
      const { token } = (await suite.server.api('GET', '/whoami', { token: tokens.access_token })).body as { token: { prefix: string } };
      // No run of the token's characters: the start of its SHA-256 (what it is stored under).
      for (let at = 0; at + 4 <= token.prefix.length; at++) assert.ok(!tokens.access_token.includes(token.prefix.slice(at, at + 4)), token.prefix);
      assert.equal(token.prefix, createHash('sha256').update(tokens.access_token).digest('base64url').slice(0, 10));
      assert.equal((await suite.server.api('GET', '/whoami', { token: tokens.access_token })).body.token.prefix, token.prefix);
      prefixes.push(token.prefix);
    }
    assert.notEqual(prefixes[0], prefixes[1]);
    // A personal access token's prefix is its own public part (svc_pat_<prefix>_<secret>).
    const pat = await suite.server.token(person.email, ['decks:read']);
    const [, patPrefix] = /^svc_pat_([0-9A-Za-z]{10})_/.exec(pat.token) ?? [];
    assert.equal((await suite.server.api('GET', '/whoami', { token: pat.token })).body.token.prefix, patPrefix);
  });

  test('should connect the MCP SDK\'s client through its OAuth flow with a http://localhost redirect, through to a tool call', async () => {
    const provider = new MemoryOauthProvider(`http://localhost:${app.port}/callback`);
    const { client: mcp } = await connectWithOauth(`${suite.server.url}/mcp`, provider, (url) => allow(url));
    try {
      // Registered with the SDK's example metadata: client_secret_post, with a secret it uses.
      assert.equal(typeof provider.clientInformation()?.client_secret, 'string');
      const result = await mcp.callTool({ name: 'whoami', arguments: {} });
      assert.equal(result.isError, undefined);
      assert.equal((result.structuredContent as { userId: string }).userId, person.userId);
      assert.equal((result.structuredContent as { source: string }).source, 'oauth');
      assert.equal((await mcp.callTool({ name: 'list_decks', arguments: {} })).isError, undefined);
    } finally {
      await mcp.close();
    }
  });

  test('should connect mcp-remote with its default settings, its browser step driven in Chromium, through to tools/list over stdio', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-mcp-remote-'));
    const opened = path.join(dir, 'opened-urls');
    // What a desktop's browser opener would do with the URL, here: hand it to the test.
    const opener = path.join(dir, 'browser');
    fs.writeFileSync(opener, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o755 });
    const transport = new StdioClientTransport({
      command: process.execPath, args: [MCP_REMOTE, `${suite.server.url}/mcp`],
      env: { BROWSER: opener, MCP_REMOTE_CONFIG_DIR: path.join(dir, 'mcp-auth') }, stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    const mcp = new Client({ name: 'desktop-host', version: '1.0.0' });
    try {
      const connected = mcp.connect(transport);
      const urls = await waitFor(30_000, async () => (fs.existsSync(opened) ? fs.readFileSync(opened, 'utf8').split('\n').filter((l) => l !== '') : []), (l) => l.length > 0);
      assert.equal(urls.length, 1, stderr);
      const authorization = new URL(urls[0] ?? '');
      const redirect = new URL(authorization.searchParams.get('redirect_uri') ?? '');
      // mcp-remote's default: a loopback redirect by name, on a port of its own choosing.
      assert.equal(redirect.hostname, 'localhost');
      assert.equal(redirect.pathname, '/oauth/callback');
      assert.equal(authorization.searchParams.get('resource'), `${suite.server.url}/mcp`);
      await allow(authorization, Number(redirect.port));
      await connected;
      const { tools } = await mcp.listTools();
      assert.ok(tools.some((t) => t.name === 'whoami'), stderr);
      assert.ok(tools.some((t) => t.name === 'get_deck'));
      const result = await mcp.callTool({ name: 'whoami', arguments: {} });
      assert.equal((result.structuredContent as { userId: string }).userId, person.userId);
    } finally {
      await mcp.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
