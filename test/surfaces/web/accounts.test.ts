// Accounts over HTTP: sign-up, sign-in, sessions and their cookie, CSRF, safe redirects, the
// one message for a failed sign-in, the throttle, and pages refused to the signed out. On both
// stores (npm test runs the suite on SQLite and on PostgreSQL + Redis).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SESSION_COOKIE } from '../../../src/surfaces/page-security.ts';
import { cli, runCli } from '../../helpers/process.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { alertText, newEmail, WebClient } from '../../helpers/web.ts';

const PASSWORD = 'correct horse battery';

describe('accounts in the browser', () => {
  const suite = buildForSuite({ env: { SIGNIN_ATTEMPTS_PER_MINUTE: '3', FAILED_AUTH_PER_MINUTE: '1000' }, socket: true });
  const client = () => new WebClient(suite.server.url);

  test('should sign up, start a session in an HttpOnly SameSite=Lax cookie without Secure on http, and show the account', async () => {
    const web = client();
    const email = newEmail();
    const res = await web.signUp(email);
    assert.equal(res.status, 303);
    assert.equal(res.location, '/');
    const cookie = web.setCookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    assert.ok(cookie);
    assert.match(cookie, /; HttpOnly/);
    assert.match(cookie, /; SameSite=Lax/);
    assert.match(cookie, /; Path=\//);
    assert.match(cookie, /; Max-Age=2592000/);
    assert.doesNotMatch(cookie, /; Secure/);
    const account = await web.get('/settings/account');
    assert.equal(account.status, 200);
    assert.ok(account.html.includes(email));
  });

  test('should refuse a password shorter than 10 characters and an email already signed up', async () => {
    const web = client();
    const email = newEmail();
    await web.get('/signup');
    const short = await web.post('/signup', { email, password: 'nine char' });
    assert.equal(short.status, 400);
    assert.match(alertText(short.html) ?? '', /10 to 200 characters/);
    assert.equal((await web.signUp(email)).status, 303);
    const again = await client().signUp(email.toUpperCase());
    assert.equal(again.status, 409);
    assert.ok(alertText(again.html));
  });

  test('should give a new session id at sign-in and end the one the browser had before (no fixation)', async () => {
    const email = newEmail();
    const web = client();
    await web.signUp(email);
    const before = web.cookies.get(SESSION_COOKIE);
    assert.ok(before);
    const stolen = client();
    stolen.cookies.set(SESSION_COOKIE, before);
    assert.equal((await stolen.get('/settings/tokens')).status, 200);
    // Signing in again from a signed-in page: a new id, and the one known before is worth nothing.
    await web.get('/settings/account');
    const res = await web.post('/signin', { email, password: PASSWORD });
    assert.equal(res.status, 303);
    const after = web.cookies.get(SESSION_COOKIE);
    assert.ok(after);
    assert.notEqual(after, before);
    assert.equal((await web.get('/settings/tokens')).status, 200);
    const old = await stolen.get('/settings/tokens');
    assert.equal(old.status, 303);
    assert.match(old.location ?? '', /^\/signin/);
    // An id planted by someone else (well-formed, unknown here) is replaced at sign-in, never adopted.
    const planted = 'A'.repeat(43);
    const victim = client();
    victim.cookies.set(SESSION_COOKIE, planted);
    assert.equal((await victim.signIn(email)).status, 303);
    assert.notEqual(victim.cookies.get(SESSION_COOKIE), planted);
    const attacker = client();
    attacker.cookies.set(SESSION_COOKIE, planted);
    assert.equal((await attacker.get('/settings/tokens')).status, 303);
  });

  test('should refuse a form post without a CSRF token, and with another session\'s token, with a 403 page', async () => {
    const alice = client();
    const mallory = client();
    await alice.signUp(newEmail());
    await mallory.signUp(newEmail());
    await alice.get('/settings/tokens');
    const none = await alice.post('/settings/tokens', { name: 'x', scopes: 'decks:read' }, null);
    assert.equal(none.status, 403);
    assert.match(none.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(none.html, /This form has expired/);
    await mallory.get('/settings/tokens');
    const foreign = await alice.post('/settings/tokens', { name: 'x', scopes: 'decks:read' }, mallory.csrf);
    assert.equal(foreign.status, 403);
    // Even with Mallory's secret cookie too: the token is bound to Mallory's session.
    const withCookie = new WebClient(suite.server.url);
    withCookie.cookies.set(SESSION_COOKIE, alice.cookies.get(SESSION_COOKIE) ?? '');
    withCookie.cookies.set('flashdeck_csrf', mallory.cookies.get('flashdeck_csrf') ?? '');
    assert.equal((await withCookie.post('/settings/tokens', { name: 'x', scopes: 'decks:read' }, mallory.csrf)).status, 403);
    const tokens = await alice.get('/settings/tokens');
    assert.ok(tokens.html.includes('You have no tokens yet'));
    // Sign-out is a form too: a third-party page cannot sign people out.
    assert.equal((await alice.post('/signout', {}, null)).status, 403);
    assert.equal((await alice.get('/settings/tokens')).status, 200);
  });

  test('should return only to a same-site path after sign-in; //evil and absolute URLs land on /', async () => {
    const email = newEmail();
    await client().signUp(email);
    const cases: [string, string][] = [
      ['/settings/tokens?x=1', '/settings/tokens?x=1'],
      ['//evil.example', '/'],
      ['https://evil.example', '/'],
      ['https://evil.example/settings/tokens', '/'],
      ['/\\evil.example', '/'],
      ['javascript:alert(1)', '/'],
      ['settings', '/'],
      [' //evil.example', '/'],
    ];
    for (const [next, expected] of cases) {
      const res = await client().signIn(email, PASSWORD, next);
      assert.equal(res.status, 303, next);
      assert.equal(res.location, expected, next);
    }
    // The sign-in page's own `?next=` is kept in the form, cleaned the same way.
    const page = await client().get(`/signin?next=${encodeURIComponent('//evil.example')}`);
    assert.match(page.html, /name="next" value="\/"/);
  });

  test('should say the same thing, with the same status, for an unknown email and a wrong password', async () => {
    const email = newEmail();
    await client().signUp(email);
    const unknown = await client().signIn(newEmail('nobody'), PASSWORD);
    const wrong = await client().signIn(email, 'not the password');
    assert.equal(unknown.status, 400);
    assert.equal(wrong.status, unknown.status);
    assert.equal(alertText(wrong.html), alertText(unknown.html));
    assert.equal(alertText(wrong.html), 'The email or password is not right');
    // The pages differ in nothing but the email typed and the form's CSRF token.
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '');
    assert.equal(strip(wrong.html), strip(unknown.html));
  });

  test('should throttle sign-in per account after SIGNIN_ATTEMPTS_PER_MINUTE failures, even with the right password', async () => {
    const email = newEmail();
    await client().signUp(email);
    for (let i = 0; i < 3; i++) assert.equal((await client().signIn(email, `wrong password ${i}`)).status, 400);
    const throttled = await client().signIn(email, PASSWORD);
    assert.equal(throttled.status, 429);
    assert.match(throttled.headers.get('retry-after') ?? '', /^\d+$/);
    assert.match(alertText(throttled.html) ?? '', /Too many failed sign-ins/);
  });

  test('should send a signed-out request to every settings page to sign in, and refuse its form posts', async () => {
    const web = client();
    for (const path of ['/settings/account', '/settings/tokens', '/settings/tokens/tok_x', '/settings/tokens/tok_x/revoke']) {
      const res = await web.get(path);
      assert.equal(res.status, 303, path);
      assert.equal(res.location, `/signin?next=${encodeURIComponent(path)}`, path);
    }
    await web.get('/signin');
    for (const path of ['/settings/tokens', '/settings/tokens/tok_x/revoke', '/settings/account/password', '/settings/account/sign-out-everywhere']) {
      const res = await web.post(path, { name: 'x' });
      assert.equal(res.status, 303, path);
      assert.equal(res.location, '/signin', path);
    }
  });

  test('should end the session at sign-out, every session at sign out everywhere, and the others at a password change', async () => {
    const email = newEmail();
    const one = client();
    await one.signUp(email);
    const two = client();
    await two.signIn(email);
    const three = client();
    await three.signIn(email);
    // A password change ends every other session; this browser gets a new one.
    await one.get('/settings/account');
    const changed = await one.post('/settings/account/password', { current: PASSWORD, new: 'a brand new password' });
    assert.equal(changed.status, 303);
    assert.equal((await one.get('/settings/account')).status, 200);
    assert.equal((await two.get('/settings/account')).status, 303);
    assert.equal((await client().signIn(email, PASSWORD)).status, 400);
    assert.equal((await two.signIn(email, 'a brand new password')).status, 303);
    // Sign out everywhere.
    await one.get('/settings/account');
    assert.match((await one.post('/settings/account/sign-out-everywhere', {})).location ?? '', /^\/signin\?done=everywhere&ended=\d+$/);
    assert.equal((await one.get('/settings/account')).status, 303);
    assert.equal((await two.get('/settings/account')).status, 303);
    // Sign out.
    await three.signIn(email, 'a brand new password');
    await three.get('/');
    const out = await three.post('/signout', {});
    assert.equal(out.status, 303);
    assert.equal(three.cookies.get(SESSION_COOKIE), undefined);
    assert.equal((await three.get('/settings/tokens')).status, 303);
  });

  test('should refuse a wrong current password when changing it', async () => {
    const web = client();
    await web.signUp(newEmail());
    await web.get('/settings/account');
    const res = await web.post('/settings/account/password', { current: 'not my password', new: 'a brand new password' });
    assert.equal(res.status, 400);
    assert.match(alertText(res.html) ?? '', /current password/);
  });

  test('should set a password with `flashdeck users set-password` from stdin, which signs the user in', async () => {
    const email = newEmail('cli');
    const env = { DATA_DIR: suite.server.dataDir };
    await cli(['users', 'add', email], env);
    // A user made by the CLI has no password yet: nothing signs them in.
    assert.equal((await client().signIn(email, PASSWORD)).status, 400);
    const run = await runCli(['users', 'set-password', email], env, 'a password from stdin\n');
    assert.equal(run.code, 0, run.stderr);
    assert.equal((await client().signIn(email, 'a password from stdin')).status, 303);
    const short = await runCli(['users', 'set-password', email], env, 'short\n');
    assert.equal(short.code, 1);
    assert.match(short.stderr, /10 to 200 characters/);
  });

  test('should refuse a password of more than one line from `flashdeck users set-password`, keeping the old one', async () => {
    const email = newEmail('cli');
    const env = { DATA_DIR: suite.server.dataDir };
    await cli(['users', 'add', email], env);
    assert.equal((await runCli(['users', 'set-password', email], env, 'the first password\n')).code, 0);
    // A sign-in form cannot submit a line break, so a second line would make a password no one can use.
    const run = await runCli(['users', 'set-password', email], env, 'first line\nand a second line\n');
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^flashdeck: the password must be one line/);
    assert.equal((await client().signIn(email, 'the first password')).status, 303);
  });
});

describe('the sign-in throttle per client address', () => {
  const suite = buildForSuite({ env: { FAILED_AUTH_PER_MINUTE: '5' }, socket: true });

  test('should refuse sign-in from an address after FAILED_AUTH_PER_MINUTE failures on any accounts', async () => {
    const email = newEmail('addr');
    await new WebClient(suite.server.url).signUp(email);
    for (let i = 0; i < 5; i++) assert.equal((await new WebClient(suite.server.url).signIn(newEmail('spray'), PASSWORD)).status, 400);
    const res = await new WebClient(suite.server.url).signIn(email, PASSWORD);
    assert.equal(res.status, 429);
    assert.match(res.headers.get('retry-after') ?? '', /^\d+$/);
  });
});

describe('accounts with SIGNUP=closed and an https PUBLIC_URL', () => {
  const suite = buildForSuite({ env: { SIGNUP: 'closed', PUBLIC_URL: 'https://flashdeck.example' }, socket: true });

  test('should refuse sign-up with a 403 page and no form', async () => {
    const web = new WebClient(suite.server.url);
    const page = await web.get('/signup');
    assert.equal(page.status, 403);
    assert.match(page.html, /Sign-up is closed/);
    assert.doesNotMatch(page.html, /name="password"/);
    const post = await web.post('/signup', { email: newEmail(), password: PASSWORD });
    assert.equal(post.status, 403);
    assert.doesNotMatch((await web.get('/')).html, /href="\/signup"/);
  });

  test('should mark the session and CSRF cookies Secure', async () => {
    const email = newEmail('secure');
    await cli(['users', 'add', email], { DATA_DIR: suite.server.dataDir });
    await runCli(['users', 'set-password', email], { DATA_DIR: suite.server.dataDir }, `${PASSWORD}\n`);
    const web = new WebClient(suite.server.url);
    assert.equal((await web.signIn(email)).status, 303);
    const session = web.setCookies.find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    const csrf = web.setCookies.find((c) => c.startsWith('flashdeck_csrf='));
    assert.match(session ?? '', /; Secure/);
    assert.match(csrf ?? '', /; Secure/);
    assert.match(csrf ?? '', /; HttpOnly/);
  });
});
