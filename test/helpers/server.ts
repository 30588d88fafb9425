// Builds the real app on a temporary store, and closes it and the store after: `build(t)` in a
// test, `buildForSuite()` in a describe body, the only two ways in, so that whatever is opened is
// closed by the hook that opened it.
// `api` goes over a real socket, or in process through Fastify's inject where the socket is not
// the point (build's default), sending what fetch would send.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { after, before, type TestContext } from 'node:test';
import zlib from 'node:zlib';
import { buildApp, type AppOverrides, type FlashdeckApp } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { dropStore, onPostgres, redisNamespaceFor, storeEnvFor, TEST_ENV } from './backend.ts';
import { OpenApiChecker } from './openapi.ts';
import { freePort } from './process.ts';

export const ALL_SCOPES = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write', 'decks:delete', 'public-decks:read'];

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  text: string;
  body: T;
}

export interface RequestOptions {
  token?: string;
  /** A JSON body (serialised here) */
  json?: unknown;
  /** A raw body, sent as is */
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Header lines sent after `headers` as they are, repeats included (fetch would fold a repeat into one). */
  repeat?: [string, string][];
}

export interface TestUser {
  userId: string;
  email: string;
  token: string;
  tokenId: string;
}

export interface TestServer {
  app: FlashdeckApp;
  config: Config;
  url: string;
  base: string;
  dataDir: string;
  api<T = any>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  user(options?: { email?: string; scopes?: string[] }): Promise<TestUser>;
  token(email: string, scopes: string[], name?: string): Promise<{ token: string; tokenId: string }>;
  close(): Promise<void>;
}

let userCounter = 0;

export interface BuildOptions {
  /** Over the test defaults (config.ts's variables). */
  env?: Record<string, string>;
  overrides?: AppOverrides;
  /** A real socket on 127.0.0.1 (for fetch, browsers, raw requests); by default `api` injects. */
  socket?: boolean;
  /**
   * A socket on a free port that PUBLIC_URL names: for what must be reached at the address the app
   * states (an OAuth issuer, the docs page's Try it out).
   */
  publicUrl?: boolean;
}

/** The app on a fresh store; `api` injects unless a socket is asked for. Closed by build's or buildForSuite's hook. */
async function open(options: BuildOptions): Promise<TestServer> {
  const inject = options.socket !== true && options.publicUrl !== true;
  let env = options.env ?? {};
  if (options.publicUrl === true) {
    const port = await freePort();
    env = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-test-'));
  // On the postgres-redis run: a fresh schema and Redis namespace per server, dropped on close.
  const redisNamespace = onPostgres() ? redisNamespaceFor(dataDir) : undefined;
  const config = loadConfig({
    ...TEST_ENV, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_DAY: '1000000', ...storeEnvFor(dataDir), ...env,
  });
  const app = await buildApp(config, { logger: false, redisNamespace, ...options.overrides });
  let url = 'http://127.0.0.1';
  if (inject) {
    await app.ready();
  } else {
    // PORT is 0 (any) unless publicUrl fixed it, so that PUBLIC_URL is where the app listens.
    await app.listen({ port: config.port, host: '127.0.0.1' });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }
  const base = `${url}/api/v1`;
  const api = apiClient(base, new OpenApiChecker(app.apiDocument() as never), inject ? injected(app, url) : undefined);

  async function token(email: string, scopes: string[], name = 'test token') {
    const created = await app.admin.createToken({ email, name, scopes });
    return { token: created.token, tokenId: created.summary.id };
  }

  async function user(options: { email?: string; scopes?: string[] } = {}): Promise<TestUser> {
    const email = options.email ?? `user${++userCounter}-${process.pid}@example.com`;
    const created = await app.admin.addUser(email);
    const t = await token(email, options.scopes ?? ALL_SCOPES);
    return { userId: created.id, email, ...t };
  }

  return {
    app, config, url, base, dataDir, api, user, token,
    async close() {
      await app.close();
      await dropStore(dataDir, redisNamespace);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The app on a fresh store for the test `t`, closed with its store when `t` ends. */
export async function build(t: Pick<TestContext, 'after'>, options: BuildOptions = {}): Promise<TestServer> {
  const server = await open(options);
  t.after(() => server.close());
  return server;
}

/**
 * In a describe body: one app (and a user holding every scope) for the suite's tests, built
 * before the first and closed after the last. Read `suite.server` and `suite.user` in the tests.
 */
export function buildForSuite(options: BuildOptions = {}): { readonly server: TestServer; readonly user: TestUser } {
  let built: { server: TestServer; user: TestUser } | undefined;
  before(async () => {
    const server = await open(options);
    built = { server, user: await server.user() };
  });
  after(async () => { await built?.server.close(); });
  const get = () => {
    if (built === undefined) throw new Error('buildForSuite: read suite.server inside a test, after the suite\'s before hook');
    return built;
  };
  return { get server() { return get().server; }, get user() { return get().user; } };
}

/**
 * Calls the API under `base` the way every test does: a token, a JSON body, and every response
 * under /api/v1 checked against the OpenAPI document, every non-2xx for the error envelope.
 */
export function apiClient(base: string, checker: OpenApiChecker, send: Send = fetchSend): TestServer['api'] {
  return async function api<T>(method: string, apiPath: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined = options.body;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    const target = apiPath.startsWith('http') ? apiPath : `${base}${apiPath}`;
    let status: number;
    let responseHeaders: Headers;
    let text: string;
    if (options.repeat === undefined) {
      ({ status, headers: responseHeaders, text } = await send(target, method, headers, body));
    } else {
      if (send !== fetchSend) throw new Error('repeated header lines need a socket: build(t, { socket: true })');
      const lines = [...Object.entries(headers), ...options.repeat];
      ({ status, headers: responseHeaders, text } = await rawRequest(target, method, lines, body === undefined ? undefined : body.toString()));
    }
    const contentType = responseHeaders.get('content-type');
    const parsed = contentType?.includes('json') && text !== '' ? JSON.parse(text) : text;
    const pathname = new URL(target).pathname;
    if (pathname.startsWith('/api/v1/') && !pathname.startsWith('/api/v1/docs')) {
      checker.check(method, pathname.slice('/api/v1'.length), status, contentType, parsed);
    }
    if (status >= 400 && pathname.startsWith('/api/v1/')) {
      if (typeof parsed !== 'object' || !parsed || typeof parsed.error?.code !== 'string' || typeof parsed.error?.message !== 'string') {
        throw new Error(`non-2xx without the error envelope: ${status} ${text.slice(0, 200)}`);
      }
    }
    return { status, headers: responseHeaders, text, body: parsed as T };
  };
}

type Send = (url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined) => Promise<{ status: number; headers: Headers; text: string }>;

async function fetchSend(url: string, method: string, headers: Record<string, string>, body: string | Buffer | undefined) {
  const res = await fetch(url, { method, headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/**
 * Requests through Fastify's inject with the headers fetch would add (checked as fetch checks
 * them, a string body as text/plain), and a compressed answer decoded as fetch decodes it.
 */
function injected(app: FlashdeckApp, origin: string): Send {
  const host = new URL(origin).host;
  return async (url, method, headers, body) => {
    const sent = new Headers(headers);
    for (const [name, value] of [['accept', '*/*'], ['accept-language', '*'], ['sec-fetch-mode', 'cors'], ['user-agent', 'node'], ['accept-encoding', 'gzip, deflate']]) {
      if (!sent.has(name)) sent.set(name, value);
    }
    if (typeof body === 'string' && !sent.has('content-type')) sent.set('content-type', 'text/plain;charset=UTF-8');
    const target = new URL(url);
    const res = await app.inject({
      method: method as 'GET', url: `${target.pathname}${target.search}`, headers: { ...Object.fromEntries(sent), host }, payload: body,
    });
    const received = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) if (one !== undefined) received.append(name, String(one));
    }
    const encoding = received.get('content-encoding');
    const raw = res.rawPayload;
    const decoded = raw.length === 0 ? raw : encoding === 'gzip' ? zlib.gunzipSync(raw) : encoding === 'deflate' ? zlib.inflateSync(raw) : encoding === 'br' ? zlib.brotliDecompressSync(raw) : raw;
    return { status: res.statusCode, headers: received, text: decoded.toString('utf8') };
  };
}

/**
 * A request whose headers go out exactly as listed, repeats included (fetch folds a repeated
 * header into one). Only for what `api` cannot send; the body comes back parsed when it is JSON.
 */
export function rawRequest(url: string, method: string, headers: [string, string][], body?: string): Promise<ApiResponse> {
  const target = new URL(url);
  const list = [['Host', target.host], ...headers, ...(body === undefined ? [] : [['Content-Length', String(Buffer.byteLength(body))]])].flat();
  return new Promise((resolve, reject) => {
    const request = http.request({ host: target.hostname, port: target.port, method, path: `${target.pathname}${target.search}`, headers: list });
    request.once('error', reject);
    request.once('response', (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
      response.once('end', () => {
        const responseHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) responseHeaders.set(name, Array.isArray(value) ? value.join(', ') : value);
        }
        const json = (response.headers['content-type'] ?? '').includes('json') && text !== '';
        resolve({ status: response.statusCode ?? 0, headers: responseHeaders, text, body: json ? JSON.parse(text) : text });
      });
    });
    request.end(body);
  });
}

/** A valid import body with `n` cards. */
export function deckBody(n = 3, title = 'Test deck'): { deck: { title: string; lang: string }; cards: { front: string; back: string }[] } {
  return {
    deck: { title, lang: 'en' },
    cards: Array.from({ length: n }, (_, i) => ({ front: `Question ${i + 1}`, back: `Answer ${i + 1}` })),
  };
}

export async function createDeck(server: TestServer, token: string, n = 3, title = 'Test deck'): Promise<{ deckId: string; version: string }> {
  const res = await server.api('POST', '/decks/import', { token, json: deckBody(n, title) });
  if (res.status !== 201) throw new Error(`import failed: ${res.status} ${res.text}`);
  return { deckId: res.body.deckId, version: res.body.version };
}

/** A clock a test moves by hand: pass `{ overrides: { clock: time.clock } }` to build, then `time.ms += 5000`. */
export interface ManualClock {
  ms: number;
  readonly clock: { now(): Date };
}

export function manualClock(start: string | number = Date.now()): ManualClock {
  const time: ManualClock = {
    ms: typeof start === 'number' ? start : Date.parse(start),
    clock: { now: () => new Date(time.ms) },
  };
  return time;
}
