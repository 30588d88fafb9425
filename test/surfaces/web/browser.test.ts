// The account pages in real headless Chromium, found by accessible names only (the names in
// DECISIONS "Web pages" are a contract): sign up, create a token with two scopes, use it against
// the API, see the call in the token's activity, revoke it and see the API refuse it within 5 s,
// sign out and be sent to sign in. Every page passes axe-core and is screenshotted into
// test-artifacts/browser/ (git-ignored); no page logs a CSP violation or overflows a phone's width.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkipReason, launchChromium, screenshot } from '../../helpers/browser.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { newEmail } from '../../helpers/web.ts';

const PHONE = { width: 360, height: 740 };

describe('account pages in Chromium', { skip: browserSkipReason() }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const consoleErrors: string[] = [];

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await context?.close();
    await browser?.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    browser = await launchChromium();
    context = await browser.newContext({ viewport: PHONE });
    page = await context.newPage();
    page.on('console', (message) => { if (message.type() === 'error') consoleErrors.push(message.text()); });
  });

  /** axe-core finds nothing, the page fits a phone's width, and a screenshot is kept. */
  async function check(name: string): Promise<void> {
    const violations = await axeViolations(page);
    assert.deepEqual(violations, [], `${name}: ${JSON.stringify(violations, null, 1)}`);
    const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    assert.equal(overflow, 0, `${name} is wider than ${PHONE.width}px`);
    await screenshot(page, name);
    assert.deepEqual(consoleErrors, [], `${name}: console errors (CSP violations among them)`);
  }

  test('should sign up, make a token, see its use, revoke it, and sign out, by accessible names', async () => {
    await page.goto(suite.server.url);
    await check('home-signed-out');

    // One link of each name on a page (the header's): a strict lookup finds it.
    for (const name of ['Sign up', 'Sign in']) assert.equal(await page.getByRole('link', { name }).count(), 1, `home: ${name}`);
    await page.getByRole('link', { name: 'Sign up' }).click();
    await page.waitForURL('**/signup');
    await check('signup');
    assert.equal(await page.getByRole('link', { name: 'Sign in' }).count(), 1, 'signup: Sign in');
    for (const [path, name] of [['/signin', 'Sign up'], ['/explore', 'Sign in']] as const) {
      const other = await page.context().newPage();
      await other.goto(`${suite.server.url}${path}`);
      assert.equal(await other.getByRole('link', { name }).count(), 1, `${path}: ${name}`);
      await other.close();
    }
    const email = newEmail('browser');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up', exact: true }).click();
    await page.getByRole('heading', { name: 'My decks', level: 1 }).waitFor();
    await check('home-signed-in');

    await page.getByRole('link', { name: 'Tokens', exact: true }).click();
    await page.getByRole('heading', { name: 'Personal access tokens', level: 1 }).waitFor();
    await check('tokens-empty');
    await page.getByRole('link', { name: 'Generate new token', exact: true }).click();
    await page.getByRole('heading', { name: 'New personal access token', level: 1 }).waitFor();
    await check('token-new');
    await page.getByLabel('Name', { exact: true }).fill('Browser token');
    await page.getByRole('checkbox', { name: 'decks:read', exact: true }).check();
    await page.getByRole('checkbox', { name: 'reviews:write', exact: true }).check();
    await page.getByLabel('Expires in', { exact: true }).selectOption({ label: '30 days' });
    await page.getByRole('button', { name: 'Create token', exact: true }).click();

    const field = page.getByRole('textbox', { name: 'New token', exact: true });
    await field.waitFor();
    assert.equal(await field.getAttribute('readonly'), '');
    const token = await field.inputValue();
    assert.match(token, /^svc_pat_/);
    await page.getByRole('button', { name: 'Copy', exact: true }).click();
    await page.getByText(/Copied|copy/).waitFor();
    await check('tokens-created');
    // Post/redirect/get: a reload shows the token no more and makes no second token.
    await page.reload();
    await page.getByText('This token was shown once').waitFor();
    assert.equal(await page.getByRole('textbox', { name: 'New token', exact: true }).count(), 0);
    await check('tokens-created-reloaded');
    await page.getByRole('link', { name: 'All tokens', exact: true }).click();
    assert.equal(await page.getByRole('link', { name: 'Browser token', exact: true }).count(), 1, 'one token was made');

    const whoami = await suite.server.api('GET', '/whoami', { token });
    assert.equal(whoami.status, 200);
    assert.deepEqual(whoami.body.scopes, ['decks:read', 'reviews:write']);

    await page.getByRole('link', { name: 'Browser token', exact: true }).click();
    await page.getByRole('heading', { name: 'Token “Browser token”', level: 1 }).waitFor();
    // The activity log is written in batches off the request path: reload until the call shows.
    const call = page.getByRole('cell', { name: '/api/v1/whoami', exact: true });
    for (let i = 0; i < 50 && !(await call.isVisible()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await page.reload();
    }
    assert.ok(await call.isVisible(), 'the whoami call is on the activity page');
    await check('token-activity');

    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByRole('heading', { name: 'Revoke token “Browser token”?', level: 1 }).waitFor();
    await check('token-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke', exact: true }).click();
    await page.getByText('The token is revoked.').waitFor();
    const revokedAt = Date.now();
    let status = 200;
    while (status !== 401 && Date.now() - revokedAt < 5000) {
      status = (await suite.server.api('GET', '/whoami', { token })).status;
      if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(status, 401, 'the API refuses the revoked token within 5 seconds');
    await check('token-revoked');

    await page.getByRole('link', { name: 'Account', exact: true }).click();
    await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
    await check('account');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(`${suite.server.url}/`);
    await page.goto(`${suite.server.url}/settings/tokens`);
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    assert.equal(new URL(page.url()).pathname, '/signin');
    assert.equal(new URL(page.url()).searchParams.get('next'), '/settings/tokens');
    await check('signin');

    // Signing in from there returns to the page asked for.
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Personal access tokens', level: 1 }).waitFor();

    await page.goto(`${suite.server.url}/no-such-page`);
    await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
    // Chromium logs the page's own 404 status as a console error; nothing else may be logged.
    assert.equal(consoleErrors.length, 1);
    assert.match(consoleErrors[0], /status of 404/);
    consoleErrors.length = 0;
    await check('not-found');
  });
});
