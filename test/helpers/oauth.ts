// OAuth suites: a server whose PUBLIC_URL is the address it listens on (the issuer must be the
// URL clients use: buildForSuite({ publicUrl: true })), a loopback "app" that receives redirects, openid-client as the client, and
// headless Chromium for sign-in and the consent page.
import http from 'node:http';
import net from 'node:net';
import * as client from 'openid-client';
import { after, before } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { signUp } from '../../src/modules/users/users.service.ts';
import { launchChromium } from './browser.ts';
import { buildForSuite, type TestServer, type TestUser } from './server.ts';

export const PASSWORD = 'correct horse battery staple';

/** A person with a password, who can sign in on the web pages. */
export async function signedUpUser(server: TestServer): Promise<{ userId: string; email: string }> {
  const email = `person-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await signUp(server.app.services, { email, password: PASSWORD });
  return { userId: user.id, email };
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

/**
 * A browser without a browser, for the suites that need many authorizations: a cookie jar over
 * fetch that follows the same pages (sign-in form, consent form, both with their CSRF tokens).
 */
export class FormBrowser {
  readonly #cookies = new Map<string, string>();
  readonly #origin: string;
  constructor(origin: string) {
    this.#origin = origin;
  }

  async request(url: string, init: { method?: string; form?: Record<string, string | string[]> } = {}): Promise<Response> {
    const target = new URL(url, this.#origin);
    const headers: Record<string, string> = {};
    if (target.origin === this.#origin && this.#cookies.size > 0) headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (init.form !== undefined) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(init.form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      body = params.toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    const response = await fetch(target, { method: init.method ?? (body === undefined ? 'GET' : 'POST'), headers, body, redirect: 'manual' });
    if (target.origin === this.#origin) {
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ''] = cookie.split(';');
        const at = pair.indexOf('=');
        const value = pair.slice(at + 1);
        if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(cookie)) this.#cookies.delete(pair.slice(0, at));
        else this.#cookies.set(pair.slice(0, at), value);
      }
    }
    return response;
  }

  /** Follows redirects within the server; stops at (and returns) a redirect to another origin. */
  async follow(url: string, init: { form?: Record<string, string | string[]> } = {}): Promise<{ response: Response; url: string }> {
    let response = await this.request(url, init);
    let current = new URL(url, this.#origin).href;
    for (let hops = 0; hops < 10 && response.status >= 300 && response.status < 400; hops++) {
      const next = new URL(response.headers.get('location') ?? '', current);
      if (next.origin !== this.#origin) return { response, url: next.href };
      current = next.href;
      response = await this.request(current);
    }
    return { response, url: current };
  }

  static csrfOf(html: string): string {
    const match = /name="_csrf" value="([^"]+)"/.exec(html);
    if (match === null) throw new Error('no CSRF token on the page');
    return match[1] ?? '';
  }

  /**
   * Authorizes: sign-in when asked, then the consent form with `decision` and the ticked scopes
   * (all offered ones unless `scopes` says). Returns where the server sent the app.
   */
  async authorize(url: URL, email: string, decision: 'allow' | 'deny', scopes?: string[]): Promise<URL> {
    let page = await this.follow(url.href);
    if (new URL(page.url).pathname === '/signin') {
      const html = await page.response.text();
      const next = /name="next" value="([^"]*)"/.exec(html)?.[1] ?? '/';
      page = await this.follow('/signin', { form: { _csrf: FormBrowser.csrfOf(html), next: next.replaceAll('&amp;', '&'), email, password: PASSWORD } });
    }
    const html = await page.response.text();
    const offered = [...html.matchAll(/name="scopes" value="([^"]+)"/g)].map((m) => m[1] ?? '');
    const done = await this.follow(page.url, { form: { _csrf: FormBrowser.csrfOf(html), decision, scopes: scopes ?? offered } });
    return new URL(done.url);
  }
}

/** POST /oauth/register with a JSON body, as any client sends it; the answer parsed. */
export async function registerClient(server: TestServer, metadata: Record<string, unknown>): Promise<{ status: number; headers: Headers; body: Record<string, any> }> {
  const response = await fetch(`${server.url}/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(metadata),
  });
  return { status: response.status, headers: response.headers, body: await response.json() as Record<string, any> };
}

/** A PKCE S256 challenge that the server accepts (its verifier is never used by these requests). */
export const SOME_CHALLENGE = { code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' };

/** GET /oauth/authorize for `clientId`, not followed: 303 to sign-in and consent, or the refusal. */
export function startAuthorization(server: TestServer, params: Record<string, string>): Promise<Response> {
  const url = new URL(`${server.url}/oauth/authorize`);
  for (const [k, v] of Object.entries({ response_type: 'code', ...SOME_CHALLENGE, ...params })) url.searchParams.set(k, v);
  return fetch(url, { redirect: 'manual' });
}

/** What a suite that consents in a browser works with. */
export interface ConsentBrowser {
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The loopback app OAuth redirects come back to. */
  app: Awaited<ReturnType<typeof loopbackApp>>;
  /** A person signed up with PASSWORD, who signs in and consents in `page`. */
  person: { userId: string; email: string };
}

/**
 * In a describe body: the app on its public URL (the issuer clients use), Chromium with one page,
 * a loopback app for redirects and a signed-up person, made before the suite's tests (`ready` gets
 * them) and closed after them, the browser and loopback app before the app.
 */
export function consentBrowserSuite(ready: (made: ConsentBrowser) => void): { readonly server: TestServer; readonly user: TestUser } {
  let made: ConsentBrowser | undefined;
  // Declared before buildForSuite, so it runs before the app is closed.
  after(async () => {
    await made?.context.close();
    await made?.browser.close();
    await made?.app.close();
  });
  const suite = buildForSuite({ publicUrl: true });
  before(async () => {
    const [browser, app] = await Promise.all([launchChromium(), loopbackApp()]);
    const context = await browser.newContext();
    const page = await context.newPage();
    made = { browser, context, page, app, person: await signedUpUser(suite.server) };
    ready(made);
  });
  return suite;
}
