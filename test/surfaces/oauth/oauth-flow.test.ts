// A real OAuth client (openid-client) connects the way the plugin and remote agents do: discovery
// from the API's protected-resource metadata, dynamic registration, sign-in and the real consent
// page in headless Chromium, code exchange, API calls within the granted scopes, refresh with
// rotation and reuse detection, revocation. The same with a client ID metadata document.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import * as client from 'openid-client';
import type { Browser, Page } from 'playwright-core';
import {
  authorizationUrl, consentInBrowser, loopbackApp, registerFromResourceMetadata, consentBrowserSuite
} from '../../helpers/oauth.ts';
import { axeViolations, browserSkipReason, screenshot } from '../../helpers/browser.ts';
import { waitFor } from '../../scale/cluster.ts';

const API_SCOPES = 'decks:read decks:write reviews:read reviews:write';

describe('an OAuth client through discovery, registration, sign-in and consent', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  let page: Page;
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { userId: string; email: string };
  // Before the suite's hooks: closed first, while the server still answers.
  const suite = consentBrowserSuite((made) => ({ browser, page, app, person } = made));

  test('should connect, call the API within the granted scopes, rotate refresh tokens and revoke the grant on reuse', async () => {
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Flashdeck plugin', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: API_SCOPES, resource });

    await page.goto(auth.url.href);
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill('correct horse battery staple');
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The consent page names the client, its redirect host, and each scope with a checkbox.
    await page.getByRole('button', { name: 'Allow' }).waitFor();
    const text = await page.locator('main').innerText();
    assert.match(text, /Flashdeck plugin/);
    assert.match(text, new RegExp(`127\\.0\\.0\\.1:${app.port}`));
    for (const scope of API_SCOPES.split(' ')) assert.equal(await page.getByLabel(scope, { exact: true }).isChecked(), true, scope);
    assert.equal(await page.getByRole('link', { name: 'Apps' }).count(), 1, 'one Apps link: the header\'s');
    // Who is signed in, with "Not you?" (account-confirmations.test.ts follows it).
    assert.match(text, new RegExp(`Signed in as ${person.email.replace(/\W/g, '\\$&')}\\.`));
    await page.getByRole('button', { name: 'Not you? Sign in as someone else' }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'consent');
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 360, height: 800 });
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0, 'no sideways scroll at 360 px');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'consent-360');
    if (viewport !== null) await page.setViewportSize(viewport);
    await page.getByLabel('decks:write', { exact: true }).uncheck();
    await Promise.all([page.waitForURL((u) => u.port === String(app.port)), page.getByRole('button', { name: 'Allow' }).click()]);

    const tokens = await client.authorizationCodeGrant(config, new URL(page.url()), { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal(tokens.expires_in, 3600);
    assert.ok(tokens.refresh_token);
    assert.deepEqual(tokens.scope?.split(' ').sort(), ['decks:read', 'reviews:read', 'reviews:write']);

    const whoami = await suite.server.api('GET', '/whoami', { token: tokens.access_token });
    assert.equal(whoami.status, 200);
    assert.equal(whoami.body.source, 'oauth');
    assert.equal(whoami.body.userId, person.userId);
    assert.equal(whoami.body.token.name, 'Flashdeck plugin');
    assert.equal(typeof whoami.body.token.id, 'string');
    assert.match(whoami.headers.get('ratelimit-policy') ?? '', /"minute";q=/);

    const list = await client.fetchProtectedResource(config, tokens.access_token, new URL(`${resource}/decks`), 'GET');
    assert.equal(list.status, 200);
    // decks:write was unticked: the API says which scope is missing.
    const write = await suite.server.api('POST', '/decks/import', { token: tokens.access_token, json: { deck: { title: 'T', lang: 'en' }, cards: [{ front: 'a', back: 'b' }] } });
    assert.equal(write.status, 403);
    assert.match(write.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="decks:write"/);

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token, { resource });
    assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
    assert.equal((await suite.server.api('GET', '/whoami', { token: refreshed.access_token })).status, 200);
    // The rotated-out refresh token is refused, and its reuse revokes the whole grant.
    await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token, { resource }), (e: client.ResponseBodyError) => e.error === 'invalid_grant');
    await assert.rejects(client.refreshTokenGrant(config, refreshed.refresh_token ?? '', { resource }), (e: client.ResponseBodyError) => e.error === 'invalid_grant');
    const refused = await waitFor(5000, () => suite.server.api('GET', '/whoami', { token: refreshed.access_token }), (r) => r.status === 401);
    assert.equal(refused.status, 401);
    assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);

    // The grant is gone from the person's apps (reuse revoked it).
    await page.goto(`${suite.server.url}/settings/apps`);
    assert.doesNotMatch(await page.locator('main').innerText(), /Flashdeck plugin/);
  });

  test('should list a granted app in settings with its scopes and activity log, and disconnect it', async () => {
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Study agent', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read reviews:read', resource });
    const callback = await consentInBrowser(page, auth.url, person.email, 'Allow', { appPort: app.port, signIn: false });
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token, headers: { 'user-agent': 'study-agent/1.0' } })).status, 200);
    await suite.server.app.activity.flush();

    await page.goto(`${suite.server.url}/settings/apps`);
    const row = page.getByRole('row', { name: /Study agent/ });
    assert.match(await row.innerText(), /decks:read, reviews:read/);
    assert.deepEqual(await axeViolations(page), []);
    await page.getByRole('link', { name: 'Study agent' }).click();
    // Its activity log: the call made with its token (the user agent under the row's More).
    await page.locator('table.activity').getByText('More').first().click();
    assert.match(await page.locator('table.activity').innerText(), /\/api\/v1\/decks[\s\S]*study-agent\/1\.0/);
    assert.deepEqual(await axeViolations(page), []);
    // On a phone the page does not scroll sideways (the 43-character client id wraps; the table scrolls in its own region).
    await page.setViewportSize({ width: 360, height: 740 });
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0);
    await screenshot(page, 'app-360');
    assert.deepEqual(await axeViolations(page), []);
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Disconnect' }).click();
    await page.getByRole('status').waitFor();
    assert.doesNotMatch(await page.locator('main').innerText(), /Study agent/);
    const refused = await waitFor(5000, () => suite.server.api('GET', '/decks', { token: tokens.access_token }), (r) => r.status === 401);
    assert.equal(refused.status, 401);
  });

  test('should show an unknown client the authorization error page without axe violations, at 1280 and 360 px', async () => {
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: 740 });
      const response = await page.goto(`${suite.server.url}/oauth/authorize?client_id=unknown&response_type=code&redirect_uri=https://elsewhere.example/cb`);
      assert.equal(response?.status(), 400);
      await page.getByRole('heading', { name: 'The app could not be connected' }).waitFor();
      await screenshot(page, `oauth-error-${width}`);
      assert.deepEqual(await axeViolations(page), []);
      assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('should list an app allowed on two devices once, with the scopes of both, and disconnect both', async () => {
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Two-device agent', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const allow = async (onPage: Page, scope: string, signIn: boolean) => {
      const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope, resource });
      const callback = await consentInBrowser(onPage, auth.url, person.email, 'Allow', { appPort: app.port, signIn });
      return client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    };
    const first = await allow(page, 'decks:read', false);
    // The second device: another browser session, so another consent and another grant.
    const otherContext = await browser.newContext();
    try {
      const second = await allow(await otherContext.newPage(), 'reviews:read', true);
      for (const tokens of [first, second]) assert.equal((await suite.server.api('GET', '/whoami', { token: tokens.access_token })).status, 200);

      await page.goto(`${suite.server.url}/settings/apps`);
      const rows = page.getByRole('row', { name: /Two-device agent/ });
      assert.equal(await rows.count(), 1);
      assert.match(await rows.innerText(), /decks:read, reviews:read/);
      await rows.getByRole('button', { name: 'Disconnect' }).click();
      await page.getByRole('status').waitFor();
      assert.doesNotMatch(await page.locator('main').innerText(), /Two-device agent/);
      for (const tokens of [first, second]) {
        const refused = await waitFor(5000, () => suite.server.api('GET', '/whoami', { token: tokens.access_token }), (r) => r.status === 401);
        assert.equal(refused.status, 401);
      }
    } finally {
      await otherContext.close();
    }
  });

  test('should refuse every token of a grant once its refresh token is revoked (RFC 7009)', async () => {
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Agent', redirect_uris: ['http://127.0.0.1/callback'] });
    const resource = `${suite.server.url}/api/v1`;
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    // Signed in already (previous test): straight to consent.
    const callback = await consentInBrowser(page, auth.url, person.email, 'Allow', { appPort: app.port, signIn: false });
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal((await suite.server.api('GET', '/decks', { token: tokens.access_token })).status, 200);
    await client.tokenRevocation(config, tokens.refresh_token ?? '');
    await assert.rejects(client.refreshTokenGrant(config, tokens.refresh_token ?? '', { resource }), (e: client.ResponseBodyError) => e.error === 'invalid_grant');
    const refused = await waitFor(5000, () => suite.server.api('GET', '/decks', { token: tokens.access_token }), (r) => r.status === 401);
    assert.equal(refused.status, 401);
  });
});
