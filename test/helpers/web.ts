// A browser without a browser, for the pages' HTTP tests: one cookie jar, manual redirects, the
// forms of the page read (hidden fields such as the CSRF token and the deck's version come
// along) and the CSRF token of the last page read, so a test can post a form as a person would
// (or not). Chromium tests use playwright instead (helpers/browser.ts); `signInBrowser` signs a
// Chromium context in.
import { Parser } from 'htmlparser2';
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { FlashdeckApp } from '../../src/app.ts';
import { startSignInSession } from '../../src/modules/sessions/sessions.service.ts';
import { setPassword } from '../../src/modules/users/users.service.ts';
import { SESSION_COOKIE } from '../../src/surfaces/page-security.ts';
import { axeViolations, hookedContext, launchChromium, screenshot, watchDialogs } from './browser.ts';
import { buildForSuite, type TestServer, type TestUser } from './server.ts';

export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  /** The same as `html`. */
  text: string;
  location: string | null;
  /** The `_csrf` field of the first form on the page, if any. */
  csrf: string | null;
}

export interface FormOnPage {
  action: string;
  method: string;
  fields: Record<string, string>;
}

/** The forms of a page, by action, with their fields' current values (the first of each name). */
export function formsOf(html: string): FormOnPage[] {
  const forms: FormOnPage[] = [];
  let current: FormOnPage | null = null;
  let textarea: string | null = null;
  let select: string | null = null;
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name === 'form') {
        current = { action: attrs.action ?? '', method: (attrs.method ?? 'get').toLowerCase(), fields: {} };
        forms.push(current);
      } else if (current !== null && name === 'input' && attrs.name !== undefined) {
        const type = attrs.type ?? 'text';
        if (type === 'submit' || type === 'file' || (type === 'checkbox' && !('checked' in attrs))) return;
        current.fields[attrs.name] ??= type === 'checkbox' ? (attrs.value ?? 'on') : (attrs.value ?? '');
      } else if (current !== null && name === 'textarea' && attrs.name !== undefined) {
        textarea = attrs.name;
        current.fields[textarea] = '';
      } else if (current !== null && name === 'select' && attrs.name !== undefined) {
        select = attrs.name;
      } else if (current !== null && name === 'option' && select !== null && ('selected' in attrs || current.fields[select] === undefined)) {
        current.fields[select] = attrs.value ?? '';
      }
    },
    ontext(text) {
      if (current !== null && textarea !== null) current.fields[textarea] += text;
    },
    onclosetag(name) {
      if (name === 'form') current = null;
      if (name === 'textarea') textarea = null;
      if (name === 'select') select = null;
    },
  }, { decodeEntities: true });
  parser.write(html);
  parser.end();
  // A textarea's first line break after the tag is not part of its value (HTML parsing rule).
  for (const form of forms) for (const [k, v] of Object.entries(form.fields)) if (v.startsWith('\n')) form.fields[k] = v.slice(1);
  return forms;
}

export function formAt(html: string, action: string): FormOnPage {
  const form = formsOf(html).find((f) => f.action === action);
  if (form === undefined) throw new Error(`no form with action ${action} on the page`);
  return form;
}

export class WebClient {
  readonly url: string;
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, as sent. */
  readonly setCookies: string[] = [];
  csrf: string | null = null;
  /** Sent as Accept unless a request names its own (signedIn and signedOut ask for text/html). */
  readonly #accept: string | undefined;

  constructor(url: string, options: { accept?: string } = {}) {
    this.url = url;
    this.#accept = options.accept;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, form?: Record<string, string | string[]> | FormData, headers: Record<string, string> = {}): Promise<PageResponse> {
    const h: Record<string, string> = { ...(this.#accept === undefined ? {} : { accept: this.#accept }), ...headers };
    if (this.cookies.size > 0) h.cookie = this.cookieHeader();
    let body: string | FormData | undefined;
    if (form instanceof FormData) {
      body = form; // fetch sets multipart/form-data with its boundary
    } else if (form !== undefined) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      body = params.toString();
      h['content-type'] = 'application/x-www-form-urlencoded';
    }
    const res = await fetch(`${this.url}${path}`, { method, headers: h, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      this.setCookies.push(line);
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const html = await res.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? null;
    if (csrf !== null) this.csrf = csrf;
    return { status: res.status, headers: res.headers, html, text: html, location: res.headers.get('location'), csrf };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  /** Posts a form with this client's latest CSRF token (unless `_csrf` is given, or null to send none). */
  post(path: string, form: Record<string, string | string[]>, csrf: string | null = this.csrf): Promise<PageResponse> {
    return this.request('POST', path, csrf === null ? form : { _csrf: csrf, ...form });
  }

  /** Submits the form of `page` whose action is `action`, with `changes` over its current values. */
  submit(page: string, action: string, changes: Record<string, string> = {}): Promise<PageResponse> {
    const form = formAt(page, action);
    return this.request('POST', action, { ...form.fields, ...changes });
  }

  /**
   * Submits the multipart form of `page` whose action is `action` (a file upload), with its
   * current values, `changes` over them, and `files` (field name to a file).
   */
  upload(page: string, action: string, changes: Record<string, string> = {}, files: Record<string, File> = {}): Promise<PageResponse> {
    const form = formAt(page, action);
    const body = new FormData();
    for (const [name, value] of Object.entries({ ...form.fields, ...changes })) body.append(name, value);
    for (const [name, file] of Object.entries(files)) body.append(name, file);
    return this.request('POST', action, body);
  }

    /** A CSRF token of this browser's session, from the sign-out form every signed-in page has. */
  async sessionCsrf(): Promise<string> {
    const home = await this.get('/');
    return formAt(home.html, '/signout').fields._csrf;
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  async signUp(email: string, password = 'correct horse battery'): Promise<PageResponse> {
    await this.get('/signup');
    return this.post('/signup', { email, password });
  }

  async signIn(email: string, password = 'correct horse battery', next?: string): Promise<PageResponse> {
    await this.get('/signin');
    return this.post('/signin', { email, password, ...(next === undefined ? {} : { next }) });
  }

  /** Creates a token on its page; the form's redirect leads to the page that shows it once. Returns the token, its id and that page. */
  async createToken(name: string, scopes: string[], expiresDays = '30'): Promise<{ token: string; tokenId: string; page: PageResponse }> {
    await this.get('/settings/tokens/new');
    const posted = await this.post('/settings/tokens', { name, scopes, expiresDays });
    const tokenId = /^\/settings\/tokens\/(tok_\w+)\/created$/.exec(posted.location ?? '')?.[1];
    if (posted.status !== 303 || tokenId === undefined) throw new Error(`token not created: ${posted.status} ${posted.location ?? ''}`);
    const page = await this.get(posted.location ?? '');
    const token = /id="new-token"[^>]*value="([^"]+)"/.exec(page.html)?.[1];
    if (page.status !== 200 || token === undefined) throw new Error(`token not shown: ${page.status}`);
    return { token, tokenId, page };
  }
}

let emails = 0;
export const newEmail = (tag = 'web'): string => `${tag}${++emails}-${process.pid}-${Date.now()}@example.com`;

/** The text of the page's alert (form error), if any. */
export function alertText(html: string): string | null {
  return /role="alert"[^>]*>([^<]*)</.exec(html)?.[1] ?? null;
}

/** A visitor who is not signed in. */
export function signedOut(server: Pick<TestServer, 'url'>): WebClient {
  return new WebClient(server.url, { accept: 'text/html' });
}

/** The password every test user signs in with (set through the users service, as the CLI does). */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A browser signed in as `user` through the sign-in form (CSRF token and all). */
export async function signedIn(server: Pick<TestServer, 'url' | 'app'>, user: TestUser): Promise<WebClient> {
  await setPassword(server.app.services, { email: user.email, password: TEST_PASSWORD });
  const client = new WebClient(server.url, { accept: 'text/html' });
  const form = await client.get('/signin');
  const res = await client.submit(form.text, '/signin', { email: user.email, password: TEST_PASSWORD, next: '/' });
  if (res.status !== 303 || client.cookie(SESSION_COOKIE) === undefined) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 300)}`);
  return client;
}

/** A Cookie header of a new session of `userId` on `app` (benches, in-process requests). */
export async function signInCookie(app: FlashdeckApp, userId: string): Promise<string> {
  const { id } = await startSignInSession(app.services, { userId }, {});
  return `${SESSION_COOKIE}=${id}`;
}

/** Signs a Chromium context in as `user` (a session made by the sessions service, as sign-in does). */
export async function signInBrowser(context: BrowserContext, server: Pick<TestServer, 'url' | 'app'>, user: TestUser): Promise<void> {
  const { id } = await startSignInSession(server.app.services, { userId: user.userId }, {});
  await context.addCookies([{ name: SESSION_COOKIE, value: id, url: server.url, httpOnly: true, sameSite: 'Lax' }]);
}

/** A Chromium suite: the app on a socket, and pages signed in as anyone. */
export interface BrowserSuite {
  readonly server: TestServer;
  /** A page in a context of its own (signed in as `user`, or not), its dialogs noted in `seen`. */
  pageAs(user: TestUser | null, viewport?: { width: number; height: number }): Promise<{ page: Page; seen: string[] }>;
}

/**
 * In a describe body: the app on a socket and one Chromium for the suite's tests, the browser and
 * its contexts closed before the app (their hook is declared first, so it runs first).
 */
export function browserSuite(): BrowserSuite {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => { browser = await launchChromium(); });
  return {
    get server() { return suite.server; },
    async pageAs(user, viewport) {
      if (browser === undefined) throw new Error('browserSuite: open pages inside the suite\'s tests');
      const context = await hookedContext(browser, suite.server.url);
      contexts.push(context);
      if (user !== null) await signInBrowser(context, suite.server, user);
      const page = await context.newPage();
      if (viewport !== undefined) await page.setViewportSize(viewport);
      const seen: string[] = [];
      watchDialogs(page, seen);
      return { page, seen };
    },
  };
}

/**
 * A page state as a person sees it: axe at 1280 and at 360 px, no sideways scroll at 360 px (naming
 * what sticks out), and a screenshot of each (test-artifacts/learning/manage-<name>[-360].png).
 */
export async function checkPageState(page: Page, name: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `${name}: axe at 1280 px`);
  await screenshot(page, `manage-${name}`, 'learning');
  await page.setViewportSize({ width: 360, height: 800 });
  const wide = await page.evaluate(`[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5).map((e) => e.tagName + '.' + e.className + '#' + e.id).slice(0, 5)`);
  assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0, `${name}: no sideways scroll at 360 px (${JSON.stringify(wide)})`);
  assert.deepEqual(await axeViolations(page), [], `${name}: axe at 360 px`);
  await screenshot(page, `manage-${name}-360`, 'learning');
  await page.setViewportSize({ width: 1280, height: 900 });
}

/**
 * What each button named `name` is described by (its aria-describedby element's text), in page
 * order: which row a row's `Restore` or `Revoke` acts on, as a screen reader tells it.
 */
export function buttonDescriptions(html: string, name: string): string[] {
  const texts: string[] = [];
  for (const button of html.matchAll(/<button\b([^>]*)>([^<]*)<\/button>/g)) {
    if (button[2].trim() !== name) continue;
    const id = /aria-describedby="([^"]+)"/.exec(button[1])?.[1];
    const target = id === undefined ? undefined : new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</`).exec(html)?.[1];
    texts.push(target?.replace(/<[^>]*>/g, '').trim() ?? '');
  }
  return texts;
}
