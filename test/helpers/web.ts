// A browser without a browser, for the pages' HTTP tests: one cookie jar, manual redirects, and
// the CSRF token of the last page read, so a test can post a form as a person would (or not).
export interface PageResponse {
  status: number;
  headers: Headers;
  html: string;
  location: string | null;
  /** The `_csrf` field of the first form on the page, if any. */
  csrf: string | null;
}

export class WebClient {
  readonly url: string;
  readonly cookies = new Map<string, string>();
  /** Every Set-Cookie header received, as sent. */
  readonly setCookies: string[] = [];
  csrf: string | null = null;

  constructor(url: string) {
    this.url = url;
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async request(method: string, path: string, form?: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<PageResponse> {
    const h: Record<string, string> = { ...headers };
    if (this.cookies.size > 0) h.cookie = this.cookieHeader();
    let body: string | undefined;
    if (form !== undefined) {
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
    return { status: res.status, headers: res.headers, html, location: res.headers.get('location'), csrf };
  }

  get(path: string): Promise<PageResponse> {
    return this.request('GET', path);
  }

  /** Posts a form with this client's latest CSRF token (unless `_csrf` is given, or null to send none). */
  post(path: string, form: Record<string, string | string[]>, csrf: string | null = this.csrf): Promise<PageResponse> {
    return this.request('POST', path, csrf === null ? form : { _csrf: csrf, ...form });
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
