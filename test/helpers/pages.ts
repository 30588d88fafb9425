// A minimal browser for page tests over HTTP: a cookie jar, forms read from the page they are on
// (hidden fields such as the CSRF token and the deck's version come along), redirects not
// followed so a test sees them. Chromium tests use playwright instead (test/web/*.browser.test.ts).
import { Parser } from 'htmlparser2';
import type { BrowserContext } from 'playwright-core';
import type { FlashdeckApp } from '../../src/app.ts';
import { startSession } from '../../src/modules/sessions/sessions.service.ts';
import { setPassword } from '../../src/modules/users/users.service.ts';
import { SESSION_COOKIE } from '../../src/surfaces/page-security.ts';
import type { TestServer, TestUser } from './server.ts';

export interface PageResponse {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
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
        if (type === 'submit' || (type === 'checkbox' && !('checked' in attrs))) return;
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

export class PageClient {
  readonly url: string;
  readonly #cookies = new Map<string, string>();

  constructor(url: string) {
    this.url = url;
  }

  async request(method: string, path: string, form?: Record<string, string>): Promise<PageResponse> {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.#cookies.size > 0) headers.cookie = [...this.#cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    let body: string | undefined;
    if (form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(form).toString();
    }
    const res = await fetch(`${this.url}${path}`, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.#cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  /** Submits the form of `page` whose action is `action`, with `changes` over its current values. */
  submit(page: string, action: string, changes: Record<string, string> = {}): Promise<PageResponse> {
    const form = formAt(page, action);
    return this.request('POST', action, { ...form.fields, ...changes });
  }

  /** A CSRF token of this browser's session, from the sign-out form every signed-in page has. */
  async csrf(): Promise<string> {
    const home = await this.get('/');
    return formAt(home.text, '/signout').fields._csrf;
  }

  cookie(name: string): string | undefined {
    return this.#cookies.get(name);
  }

  setCookie(name: string, value: string): void {
    this.#cookies.set(name, value);
  }
}

/** A visitor who is not signed in. */
export function signedOut(server: Pick<TestServer, 'url'>): PageClient {
  return new PageClient(server.url);
}

/** The password every test user signs in with (set through the users service, as the CLI does). */
export const TEST_PASSWORD = 'correct horse battery staple';

/** A browser signed in as `user` through the sign-in form (CSRF token and all). */
export async function signedIn(server: Pick<TestServer, 'url' | 'app'>, user: TestUser): Promise<PageClient> {
  await setPassword(server.app.services, { email: user.email, password: TEST_PASSWORD });
  const client = new PageClient(server.url);
  const form = await client.get('/signin');
  const res = await client.submit(form.text, '/signin', { email: user.email, password: TEST_PASSWORD, next: '/' });
  if (res.status !== 303 || client.cookie(SESSION_COOKIE) === undefined) throw new Error(`sign-in failed: ${res.status} ${res.text.slice(0, 300)}`);
  return client;
}

/** A Cookie header of a new session of `userId` on `app` (benches, in-process requests). */
export async function signInCookie(app: FlashdeckApp, userId: string): Promise<string> {
  const { id } = await startSession(app.services, { userId }, {});
  return `${SESSION_COOKIE}=${id}`;
}

/** Signs a Chromium context in as `user` (a session made by the sessions service, as sign-in does). */
export async function signInBrowser(context: BrowserContext, server: Pick<TestServer, 'url' | 'app'>, user: TestUser): Promise<void> {
  const { id } = await startSession(server.app.services, { userId: user.userId }, {});
  await context.addCookies([{ name: SESSION_COOKIE, value: id, url: server.url, httpOnly: true, sameSite: 'Lax' }]);
}
