// The official MCP SDK's client with its own OAuth flow, as an agent runs it: it meets the 401,
// discovers the authorization server from the protected-resource metadata, registers, and hands
// the person an authorization URL (here to a `consent` function: Chromium in tests, a form client
// in the benchmark); the code that comes back to its loopback redirect finishes the flow.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

/** An in-memory OAuthClientProvider, as the SDK's own example client keeps one. */
export class MemoryOauthProvider implements OAuthClientProvider {
  readonly redirectUrl: string;
  readonly clientMetadata: OAuthClientMetadata;
  /** Every authorization URL the SDK sent the person to. */
  readonly authorizationUrls: URL[] = [];
  #client: OAuthClientInformationMixed | undefined;
  #tokens: OAuthTokens | undefined;
  #verifier = '';

  constructor(redirectUrl: string, metadata: Partial<OAuthClientMetadata> = {}) {
    this.redirectUrl = redirectUrl;
    // The SDK example client's metadata (simpleOAuthClient.ts).
    this.clientMetadata = {
      client_name: 'MCP SDK client', redirect_uris: [redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'client_secret_post', ...metadata,
    };
  }

  clientInformation(): OAuthClientInformationMixed | undefined { return this.#client; }
  saveClientInformation(info: OAuthClientInformationMixed): void { this.#client = info; }
  tokens(): OAuthTokens | undefined { return this.#tokens; }
  saveTokens(tokens: OAuthTokens): void { this.#tokens = tokens; }
  redirectToAuthorization(url: URL): void { this.authorizationUrls.push(url); }
  saveCodeVerifier(verifier: string): void { this.#verifier = verifier; }
  codeVerifier(): string { return this.#verifier; }
}

export interface OauthConnection {
  client: Client;
  /** When the first 401 came back, when the authorization URL was handed over, when the code came back, and when connected (performance.now()). */
  times: { started: number; unauthorized: number; sentToPerson: number; codeBack: number; connected: number };
}

/**
 * Connects the SDK's client to `mcpUrl` through its OAuth flow: the first connect meets the 401
 * and ends in UnauthorizedError once the SDK has sent the person to the authorization URL;
 * `consent` answers it and returns the URL the browser was sent back to; the code goes to
 * finishAuth, and a second connect succeeds with the token.
 */
export async function connectWithOauth(mcpUrl: string, provider: MemoryOauthProvider, consent: (url: URL) => Promise<URL>): Promise<OauthConnection> {
  let unauthorized = 0;
  const fetchFn: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (response.status === 401 && unauthorized === 0) unauthorized = performance.now();
    return response;
  };
  const started = performance.now();
  const first = new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: fetchFn });
  const refused = await new Client({ name: 'flashdeck-test', version: '1.0.0' }).connect(first).then(() => null, (error: unknown) => error);
  if (!(refused instanceof UnauthorizedError)) throw new Error(`expected the OAuth flow to start, got ${String(refused)}`);
  const url = provider.authorizationUrls.at(-1);
  if (url === undefined) throw new Error('the SDK sent no authorization URL');
  const sentToPerson = performance.now();
  const callback = await consent(url);
  const codeBack = performance.now();
  const code = callback.searchParams.get('code');
  if (code === null) throw new Error(`no code in ${callback.href}`);
  await first.finishAuth(code);
  const client = new Client({ name: 'flashdeck-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: fetchFn }));
  return { client, times: { started, unauthorized, sentToPerson, codeBack, connected: performance.now() } };
}
