// Step-up driven by the client, as the official SDK 2.x client does it (SEP-2350): the person
// allowed an agent less than a tool needs; the tool call meets 403 insufficient_scope naming the
// scope, the SDK asks for the union of what it holds and what the tool needs, the person sees the
// consent page again in Chromium and allows it, and the same call then succeeds.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  Client, StreamableHTTPClientTransport, UnauthorizedError,
  type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { Page } from 'playwright-core';
import { consentInBrowser, loopbackApp, consentBrowserSuite } from '../../helpers/oauth.ts';
import { browserSkipReason } from '../../helpers/browser.ts';
import { createDeck } from '../../helpers/server.ts';

/** An in-memory provider, as the SDK's example clients keep one. */
class MemoryProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  readonly authorizationUrls: URL[] = [];
  #client: StoredOAuthClientInformation | undefined;
  #tokens: StoredOAuthTokens | undefined;
  #verifier = '';
  #discovery: OAuthDiscoveryState | undefined;
  constructor(redirectUrl: string) {
    this.redirectUrl = redirectUrl;
    this.clientMetadata = {
      client_name: 'Step-up agent', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }

  clientInformation(): StoredOAuthClientInformation | undefined { return this.#client; }
  saveClientInformation(info: StoredOAuthClientInformation): void { this.#client = info; }
  tokens(): StoredOAuthTokens | undefined { return this.#tokens; }
  saveTokens(tokens: StoredOAuthTokens): void { this.#tokens = tokens; }
  redirectToAuthorization(url: URL): void { this.authorizationUrls.push(url); }
  saveCodeVerifier(verifier: string): void { this.#verifier = verifier; }
  codeVerifier(): string { return this.#verifier; }
  saveDiscoveryState(state: OAuthDiscoveryState): void { this.#discovery = state; }
  discoveryState(): OAuthDiscoveryState | undefined { return this.#discovery; }
}

describe('step-up from the official SDK 2.x client', { skip: browserSkipReason() }, () => {
  let page: Page;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { userId: string; email: string };
  // Before the suite's hooks: closed first, while the server still answers.
  const suite = consentBrowserSuite((made) => ({ page, app, person } = made));

  test('should take the SDK from a 403 insufficient_scope through the person\'s new consent to the same tool call succeeding', async () => {
    const mcpUrl = new URL(`${suite.server.url}/mcp`);
    const provider = new MemoryProvider(`http://localhost:${app.port}/callback`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await assert.rejects(new Client({ name: 'step-up-agent', version: '1.0.0' }).connect(first), UnauthorizedError);
    // The person allows everything but writing decks.
    const granted = await consentInBrowser(page, provider.authorizationUrls[0], person.email, 'Allow', { appPort: app.port, uncheck: ['decks:write'] });
    await first.finishAuth(granted.searchParams);
    assert.doesNotMatch(provider.tokens()?.scope ?? '', /decks:write/);

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const mcp = new Client({ name: 'step-up-agent', version: '1.0.0' });
    await mcp.connect(transport);
    try {
      const pat = await suite.server.token(person.email, ['decks:read', 'decks:write']);
      const { deckId } = await createDeck(suite.server, pat.token, 2);
      assert.equal((await mcp.callTool({ name: 'get_deck', arguments: { deckId } })).isError, undefined);
      const append = { name: 'append_cards', arguments: { deckId, idempotencyKey: 'step-up-append-1', cards: [{ front: 'Q', back: 'A' }] } };

      // 403 insufficient_scope: the SDK asks the person again, for what it holds plus decks:write.
      await assert.rejects(mcp.callTool(append), UnauthorizedError);
      assert.equal(provider.authorizationUrls.length, 2);
      const asked = (provider.authorizationUrls[1]?.searchParams.get('scope') ?? '').split(' ').sort();
      assert.deepEqual(asked, ['decks:read', 'decks:write', 'reviews:read', 'reviews:write']);
      await page.goto(provider.authorizationUrls[1]?.href ?? '');
      await page.getByRole('button', { name: 'Allow' }).waitFor();
      assert.equal(await page.getByLabel('decks:write', { exact: true }).isChecked(), true);
      const stepped = await consentInBrowser(page, provider.authorizationUrls[1], person.email, 'Allow', { appPort: app.port, signIn: false });
      await transport.finishAuth(stepped.searchParams);
      assert.match(provider.tokens()?.scope ?? '', /decks:write/);

      const result = await mcp.callTool(append);
      assert.equal(result.isError, undefined, JSON.stringify(result.content));
      const deck = await suite.server.api('GET', `/decks/${deckId}`, { token: pat.token });
      assert.equal(deck.body.cards.length, 3);
    } finally {
      await mcp.close();
    }
  });
});
