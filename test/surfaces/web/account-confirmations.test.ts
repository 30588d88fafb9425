// What the account pages say they did, over HTTP: `Sign out everywhere` confirms how many sessions
// it ended, and the OAuth consent page shows who is signed in with "Not you?", which signs out and
// comes back to the same consent after signing in as someone else.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authorizationUrl, FormBrowser, loopbackApp, PASSWORD, registerFromResourceMetadata, signedUpUser } from '../../helpers/oauth.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { newEmail, WebClient } from '../../helpers/web.ts';

describe('account pages say what they did', () => {
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await app.close();
  });
  const suite = buildForSuite({ publicUrl: true });
  before(async () => {
    app = await loopbackApp();
  });

  test('should confirm Sign out everywhere by the number of sessions it ended, and end the other browser\'s session', async () => {
    const email = newEmail('everywhere');
    const here = new WebClient(suite.server.url);
    assert.equal((await here.signUp(email)).status, 303);
    const there = new WebClient(suite.server.url);
    assert.equal((await there.signIn(email)).status, 303);
    await here.get('/settings/account');
    const done = await here.post('/settings/account/sign-out-everywhere', {});
    assert.equal(done.status, 303);
    const page = await here.get(done.location ?? '');
    assert.match(page.html, /role="status">You are signed out everywhere: 2 sessions ended/);
    assert.equal((await there.get('/settings/tokens')).status, 303, 'the other browser is signed out too');
  });

  test('should show who is signed in on the consent page, and let "Not you?" sign in as someone else and come back to it', async () => {
    const first = await signedUpUser(suite.server);
    const second = await signedUpUser(suite.server);
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Plugin', redirect_uris: [app.redirectUri] });
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource: `${suite.server.url}/api/v1` });
    const browser = new FormBrowser(suite.server.url);

    const signIn = async (url: string, html: string, email: string) => {
      const next = /name="next" value="([^"]*)"/.exec(html)?.[1] ?? '/';
      assert.equal(new URL(url).pathname, '/signin');
      return browser.follow('/signin', { form: { _csrf: FormBrowser.csrfOf(html), next: next.replaceAll('&amp;', '&'), email, password: PASSWORD } });
    };
    const start = await browser.follow(auth.url.href);
    const consent = await signIn(start.url, await start.response.text(), first.email);
    const html = await consent.response.text();
    assert.match(html, new RegExp(`Signed in as <strong>${first.email}</strong>`));
    const uid = /action="\/oauth\/interaction\/([^"]+)"/.exec(html)?.[1] ?? '';
    assert.match(html, /<input type="hidden" name="next" value="\/oauth\/interaction\/[^"]+">\s*<button type="submit" class="link">Not you\? Sign in as someone else<\/button>/);

    const out = await browser.request('/signout', { form: { _csrf: FormBrowser.csrfOf(html), next: `/oauth/interaction/${uid}` } });
    assert.equal(out.status, 303);
    assert.equal(out.headers.get('location'), `/signin?next=${encodeURIComponent(`/oauth/interaction/${uid}`)}`);
    const signInPage = await browser.follow(out.headers.get('location') ?? '');
    const again = await signIn(signInPage.url, await signInPage.response.text(), second.email);
    assert.equal(new URL(again.url).pathname, `/oauth/interaction/${uid}`, 'back on the same consent');
    assert.match(await again.response.text(), new RegExp(`Signed in as <strong>${second.email}</strong>`));
  });
});
