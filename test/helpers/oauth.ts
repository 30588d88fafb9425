// OAuth suites: a server whose PUBLIC_URL is the address it listens on (the issuer must be the
// URL clients use), a loopback "app" that receives redirects, openid-client as the client, and
// headless Chromium for sign-in and the consent page.
import http from 'node:http';
import net from 'node:net';
import * as client from 'openid-client';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { AppOverrides } from '../../src/app.ts';
import { startServer, type TestServer } from './server.ts';

export const PASSWORD = 'correct horse battery staple';

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server listening on the port its PUBLIC_URL names. */
export async function startOauthServer(env: Record<string, string> = {}, overrides: AppOverrides = {}): Promise<TestServer> {
  const port = await freePort();
  return startServer({ PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env }, overrides);
}

/** The app's loopback redirect target: answers 200 and remembers every URL it was sent to. */
export async function loopbackApp(): Promise<{ port: number; redirectUri: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => res.end('You can close this window.'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    port,
    redirectUri: `http://127.0.0.1:${port}/callback`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Options openid-client needs against a plain-http test server. */
// eslint-disable-next-line @typescript-eslint/no-deprecated -- the test server is plain http on loopback
export const INSECURE = { execute: [client.allowInsecureRequests], algorithm: 'oauth2' as const };

/**
 * Discovery the way a remote client does it: the API's protected-resource metadata names the
 * authorization server, whose RFC 8414 metadata openid-client reads; then dynamic registration.
 */
export async function registerFromResourceMetadata(server: TestServer, metadata: Partial<client.ClientMetadata>): Promise<client.Configuration> {
  const prm = await (await fetch(`${server.url}/.well-known/oauth-protected-resource`)).json() as { authorization_servers: string[] };
  return client.dynamicClientRegistration(new URL(prm.authorization_servers[0]), {
    token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], ...metadata,
  }, client.None(), INSECURE);
}

export interface Authorization {
  url: URL;
  verifier: string;
  state: string;
}

export async function authorizationUrl(config: client.Configuration, params: Record<string, string>): Promise<Authorization> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state, ...params,
  });
  return { url, verifier, state };
}

/**
 * Sends the browser to the authorization URL, signs in on the sign-in page it is sent to, and
 * answers the consent page (`uncheck`: scopes to untick first). Returns the URL the app got.
 */
export async function consentInBrowser(
  page: Page, url: URL, email: string, decision: 'Allow' | 'Deny', options: { uncheck?: string[]; appPort: number; signIn?: boolean },
): Promise<URL> {
  await page.goto(url.href);
  if (options.signIn !== false) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  for (const scope of options.uncheck ?? []) await page.getByLabel(scope, { exact: true }).uncheck();
  await Promise.all([
    page.waitForURL((u) => u.port === String(options.appPort)),
    page.getByRole('button', { name: decision }).click(),
  ]);
  return new URL(page.url());
}
