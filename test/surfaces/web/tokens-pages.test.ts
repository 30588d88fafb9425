// The token settings pages over HTTP: tokens made here are the API's, revocation is refused by
// the API, the activity page pages and filters like the API, another person's token is a 404 that
// tells nothing, and every page carries the security headers. On both stores.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { insertActivity, type ActivityEntry } from '../../../src/modules/activity/activity.repository.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { buttonDescriptions, newEmail, WebClient } from '../../helpers/web.ts';

describe('token settings pages', () => {
  const suite = buildForSuite({ socket: true });

  async function signedIn(): Promise<WebClient> {
    const web = new WebClient(suite.server.url);
    assert.equal((await web.signUp(newEmail('tok'))).status, 303);
    return web;
  }

  test('should create a token with decks:delete and public-decks:read, show it once, and the API should accept it with those scopes', async () => {
    const web = await signedIn();
    const { token, tokenId, page } = await web.createToken('laptop', ['decks:delete', 'public-decks:read'], '7');
    assert.match(page.html, /<label for="new-token">New token<\/label>/);
    assert.match(page.html, /id="new-token" type="text" readonly/);
    assert.match(page.html, /data-copy="new-token"/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const whoami = await suite.server.api('GET', '/whoami', { token });
    assert.equal(whoami.status, 200);
    assert.deepEqual(whoami.body.scopes, ['decks:delete', 'public-decks:read']);
    assert.equal(whoami.body.token.id, tokenId);
    // Shown once: the list and the token's page never show it again.
    for (const path of ['/settings/tokens', `/settings/tokens/${tokenId}`]) {
      const again = await web.get(path);
      assert.equal(again.status, 200);
      assert.ok(!again.html.includes(token), path);
    }
    const list = await web.get('/settings/tokens');
    assert.ok(list.html.includes(whoami.body.token.prefix));
    assert.match(list.html, /status-active">active</);
  });

  test('should show a new token once after a redirect, a reload showing it no more and making nothing', async () => {
    const web = await signedIn();
    const form = await web.get('/settings/tokens/new');
    assert.match(form.html, /<label for="expires">Expires in<\/label>/);
    assert.match(form.html, /expires on <time datetime="\d{4}-\d\d-\d\dT/, 'the exact expiry dates are shown');
    const posted = await web.post('/settings/tokens', { name: 'once', scopes: 'decks:read', expiresDays: '30' });
    assert.equal(posted.status, 303);
    const shown = await web.get(posted.location ?? '');
    const token = /id="new-token"[^>]*value="([^"]+)"/.exec(shown.html)?.[1] ?? '';
    assert.match(token, /^svc_pat_/);
    assert.equal(shown.headers.get('content-encoding'), null, 'a page with a secret is not compressed');
    const reload = await web.get(posted.location ?? '');
    assert.equal(reload.status, 200);
    assert.ok(!reload.html.includes(token), 'a reload does not show the token again');
    assert.match(reload.html, /was shown once/);
    const list = await web.get('/settings/tokens');
    assert.equal(list.html.match(/href="\/settings\/tokens\/tok_\w+">once</g)?.length, 1, 'one token was made');
    // The sealed cookie opens for its own session only.
    const other = await signedIn();
    other.cookies.set('flashdeck_shown_once', web.setCookies.map((c) => /^flashdeck_shown_once=([^;]+)/.exec(c)?.[1]).find((v) => v !== undefined && v !== '') ?? '');
    assert.equal((await other.get(posted.location ?? '')).status, 404, 'another account never sees the token page');
  });

  test('should refuse a token without scopes or with an unknown expiry, keeping the form', async () => {
    const web = await signedIn();
    await web.get('/settings/tokens/new');
    const none = await web.post('/settings/tokens', { name: 'nothing', expiresDays: '30' });
    assert.equal(none.status, 400);
    assert.match(none.html, /Scopes: tick at least one scope\./, 'the field is named by its label');
    assert.match(none.html, /value="nothing"/);
    const odd = await web.post('/settings/tokens', { name: 'odd', scopes: 'decks:read', expiresDays: '8' });
    assert.equal(odd.status, 400);
  });

  test('should ask before revoking, then have the API refuse the token', async () => {
    const web = await signedIn();
    const { token, tokenId } = await web.createToken('to revoke', ['decks:read']);
    const confirm = await web.get(`/settings/tokens/${tokenId}/revoke`);
    assert.equal(confirm.status, 200);
    assert.match(confirm.html, /cannot be undone/);
    assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    const res = await web.post(`/settings/tokens/${tokenId}/revoke`, {});
    assert.equal(res.status, 303);
    assert.equal(res.location, `/settings/tokens/${tokenId}?done=revoked`);
    const refused = await suite.server.api('GET', '/whoami', { token });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.error.code, 'TOKEN_REVOKED');
    const page = await web.get(`/settings/tokens/${tokenId}?done=revoked`);
    assert.match(page.html, /status-revoked">revoked</);
  });

  test("should answer another person's token page, revoke page and revoke with 404, naming nothing of it", async () => {
    const owner = await signedIn();
    const { token, tokenId } = await owner.createToken('secret-name-x1', ['decks:read']);
    const prefix = (await suite.server.api('GET', '/whoami', { token })).body.token.prefix as string;
    const other = await signedIn();
    const unknown = await other.get('/settings/tokens/tok_doesnotexist000000');
    for (const path of [`/settings/tokens/${tokenId}`, `/settings/tokens/${tokenId}/revoke`]) {
      const res = await other.get(path);
      assert.equal(res.status, 404, path);
      assert.ok(!res.html.includes('secret-name-x1') && !res.html.includes(prefix), path);
      assert.equal(res.html.replace(/value="[^"]*"/g, '').replace(/Signed in as [^<]*/g, ''), unknown.html.replace(/value="[^"]*"/g, '').replace(/Signed in as [^<]*/g, ''));
    }
    await other.get('/settings/tokens');
    assert.equal((await other.post(`/settings/tokens/${tokenId}/revoke`, {})).status, 404);
    assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
  });

  test('should show each call\'s error code in the activity log, recorded from the API\'s refusal', async () => {
    const web = await signedIn();
    const { token, tokenId } = await web.createToken('refused', ['decks:read']);
    assert.equal((await suite.server.api('GET', '/decks/dck_doesnotexist000000000', { token })).status, 404);
    assert.equal((await suite.server.api('POST', '/decks/import', { token, json: {} })).status, 403);
    assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
    await suite.server.app.activity.flush();
    const page = await web.get(`/settings/tokens/${tokenId}`);
    assert.match(page.html, /<span class="http-status">404<\/span> <code class="error-code">DECK_NOT_FOUND<\/code>/);
    assert.match(page.html, /<span class="http-status">403<\/span> <code class="error-code">FORBIDDEN<\/code>/);
    assert.match(page.html, /<span class="http-status">200<\/span><\/td>/, 'a success has no code');
  });

  test('should list a token\'s calls newest first with every field, in keyset pages of 100, filtered by outcome', async () => {
    const web = await signedIn();
    const { token, tokenId } = await web.createToken('busy', ['decks:read']);
    const userId = (await suite.server.api('GET', '/whoami', { token })).body.userId as string;
    await suite.server.app.activity.flush();
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const statuses = [200, 404, 429, 500];
    const entries: ActivityEntry[] = Array.from({ length: 230 }, (_, i) => ({
      tokenId, userId, at: new Date(base + Math.floor(i / 2) * 1000).toISOString(), method: 'GET', route: `/api/v1/decks/:deckId`,
      deckId: `dck_${i}`, status: statuses[i % 4], errorCode: ({ 404: 'DECK_NOT_FOUND', 429: 'RATE_LIMITED', 500: 'INTERNAL_ERROR' } as Record<number, string>)[statuses[i % 4]] ?? null, durationMs: i, clientIp: '192.0.2.7', userAgent: `agent/${i}`, requestId: `req-${i}`,
    }));
    await insertActivity(suite.server.app.services.db, entries);
    const seen: string[] = [];
    let path: string | null = `/settings/tokens/${tokenId}`;
    let pages = 0;
    while (path !== null) {
      const res = await web.get(path);
      assert.equal(res.status, 200);
      const ids = [...res.html.matchAll(/<code>(req-\d+)<\/code>/g)].map((m) => m[1]);
      assert.ok(ids.length <= 100);
      seen.push(...ids);
      pages++;
      path = /href="([^"]+)">Older calls</.exec(res.html)?.[1].replaceAll('&amp;', '&') ?? null;
    }
    assert.equal(pages, 3);
    const expected = entries.map((e, i) => ({ e, i })).sort((x, y) => (x.e.at === y.e.at ? y.i - x.i : y.e.at.localeCompare(x.e.at))).map((x) => x.e.requestId);
    assert.deepEqual(seen, expected);
    const first = await web.get(`/settings/tokens/${tokenId}`);
    // A route carries <wbr>s (it may break before a slash); they are not part of its text.
    const shown = first.html.replaceAll('<wbr>', '');
    for (const text of ['GET', '/api/v1/decks/:deckId', 'dck_229', '192.0.2.7', 'agent/229', 'req-229', '229 ms', 'INTERNAL_ERROR']) assert.ok(shown.includes(text), text);
    // Filtered: only 429s, and the next page keeps the filter.
    const limited = await web.get(`/settings/tokens/${tokenId}?outcome=429`);
    const statusCells = [...limited.html.matchAll(/<span class="http-status">(\d{3})<\/span>/g)].map((m) => m[1]);
    assert.ok(statusCells.length > 0);
    assert.ok(statusCells.every((s) => s === '429'));
    // The choices are named as DECISIONS names the outcomes; that 4xx leaves out 429 is a hint.
    const options = [...first.html.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((m) => [m[1], m[2]]);
    assert.deepEqual(options, [['', 'All'], ['2xx', '2xx'], ['4xx', '4xx'], ['5xx', '5xx'], ['429', '429']]);
    const fourxx = await web.get(`/settings/tokens/${tokenId}?outcome=4xx`);
    assert.ok([...fourxx.html.matchAll(/<span class="http-status">(\d{3})<\/span>/g)].every((m) => m[1] === '404'));
    assert.equal((await web.get(`/settings/tokens/${tokenId}?outcome=3xx`)).status, 400);
    assert.equal((await web.get(`/settings/tokens/${tokenId}?token=forged.token`)).status, 400);
  });

  test('should list a person\'s tokens newest first in keyset pages of 50, and refuse a page token of another person\'s list', async () => {
    const web = await signedIn();
    const made: string[] = [];
    for (let i = 0; i < 120; i++) made.push((await web.createToken(`t${i}`, ['decks:read'])).tokenId);
    const seen: string[] = [];
    const pages: string[] = [];
    let path: string | null = '/settings/tokens';
    while (path !== null) {
      const res = await web.get(path);
      assert.equal(res.status, 200);
      pages.push(res.html);
      seen.push(...[...res.html.matchAll(/<th scope="row"><a href="\/settings\/tokens\/(tok_\w+)">/g)].map((m) => m[1]));
      // Each row's Revoke tells a screen reader which token it revokes.
      assert.deepEqual(buttonDescriptions(res.html, 'Revoke'), [...res.html.matchAll(/<th scope="row"><a [^>]*>([^<]*)<\/a>/g)].map((m) => m[1]));
      path = /href="([^"]+)">Older tokens</.exec(res.html)?.[1].replaceAll('&amp;', '&') ?? null;
    }
    assert.deepEqual(pages.map((html) => (html.match(/<th scope="row">/g) ?? []).length), [50, 50, 20]);
    assert.deepEqual(seen, made.toReversed());
    assert.doesNotMatch(pages[0], /Newest tokens/);
    assert.match(pages[1], /href="\/settings\/tokens">Newest tokens</);
    const second = /href="([^"]+)">Older tokens</.exec(pages[0])?.[1].replaceAll('&amp;', '&') ?? '';
    assert.equal((await web.get('/settings/tokens?token=forged.token')).status, 400);
    // Another person's continuation token is not a key into this person's list.
    assert.equal((await (await signedIn()).get(second)).status, 400);
  });

  test('should send the security headers on every page and no CORS headers', async () => {
    const web = await signedIn();
    for (const path of ['/', '/signin', '/settings/tokens', '/settings/account', '/nowhere']) {
      const res = await web.request('GET', path, undefined, { origin: 'https://elsewhere.example' });
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/, path);
      assert.match(csp, /script-src 'self'(;|$)/, path);
      assert.match(csp, /frame-ancestors 'none'/, path);
      assert.doesNotMatch(csp, /unsafe-inline|https?:\/\//, path);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
      assert.equal(res.headers.get('referrer-policy'), 'same-origin', path);
      assert.equal(res.headers.get('access-control-allow-origin'), null, path);
      assert.doesNotMatch(res.html, /<script>|<script [^>]*>[^<]/, path);
    }
  });

  test('should list the person\'s decks on the home page, linking to the learning view and the editor', async () => {
    const web = await signedIn();
    const { token } = await web.createToken('importer', ['decks:write', 'decks:read']);
    const imported = await suite.server.api('POST', '/decks/import', { token, json: { deck: { title: 'Deck <b>one</b>', lang: 'en' }, cards: [{ front: 'a', back: 'b' }, { front: 'c', back: 'd' }] } });
    assert.equal(imported.status, 201);
    const home = await web.get('/');
    assert.ok(home.html.includes('Deck &lt;b&gt;one&lt;/b&gt;'));
    assert.ok(home.html.includes(`href="/decks/${imported.body.deckId}"`));
    assert.ok(home.html.includes(`href="/decks/${imported.body.deckId}/edit"`));
    assert.match(home.html, /<td class="wide">2<\/td>/);
    assert.match(home.html, /<td class="wide">private<\/td>/);
    assert.match(home.html, /<td class="num due">0<\/td>\s*<td class="num new some">2<\/td>/, 'none due, two new');
    assert.ok(home.html.includes('href="/api/v1/docs"'));
  });
});
