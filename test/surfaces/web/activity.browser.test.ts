// A token's activity log in headless Chromium: each call's status with its error code, nothing cut
// off at 1280 px (the table fits its region), the rest of a call one click away (More), the new
// token's page shown once; axe at 1280 and 360 px; what Sign out everywhere did. Screenshots go to test-artifacts/learning.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { axeViolations, browserSkipReason, hookedContext, launchChromium, pageProblems, screenshot } from '../../helpers/browser.ts';
import { signInBrowser } from '../../helpers/web.ts';
import { startServer, type TestServer, type TestUser } from '../../helpers/server.ts';

describe('activity log in headless Chromium', { skip: browserSkipReason() }, () => {
  let server: TestServer;
  let owner: TestUser;
  let browser: Browser;
  let context: BrowserContext;

  before(async () => {
    server = await startServer();
    owner = await server.user();
    browser = await launchChromium();
    context = await hookedContext(browser, server.url);
    await signInBrowser(context, server, owner);
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  test('should show every call with its error code, uncut at 1280 px, with the rest one click away', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/settings/tokens/new`);
    await page.getByLabel('Name', { exact: true }).fill('Agent');
    await page.getByRole('checkbox', { name: 'decks:read', exact: true }).check();
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    const token = await page.getByRole('textbox', { name: 'New token', exact: true }).inputValue();
    await screenshot(page, 'token-created', 'learning');
    assert.deepEqual(await axeViolations(page), []);

    await server.api('GET', '/decks/dck_doesnotexist000000000', { token, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 agent' } });
    await server.api('POST', '/decks/import', { token, json: {} });
    await server.api('GET', '/whoami', { token });
    await server.app.activity.flush();
    await page.getByRole('link', { name: 'Token details and activity' }).click();
    await page.getByRole('cell', { name: '404 DECK_NOT_FOUND' }).waitFor();
    await page.getByRole('cell', { name: '403 FORBIDDEN' }).waitFor();
    const region = page.getByRole('region', { name: 'Activity (scrolls sideways)' });
    assert.equal(await region.evaluate((el: any) => el.scrollWidth - el.clientWidth), 0, 'nothing cut off at 1280 px');
    await page.getByText('More').first().click();
    await page.getByText('Request id').first().waitFor();
    assert.equal(await region.evaluate((el: any) => el.scrollWidth - el.clientWidth), 0, 'an open row fits too');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'token-activity-1280', 'learning');
    await page.setViewportSize({ width: 360, height: 800 });
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0, 'the page does not scroll sideways at 360 px');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'token-activity-360', 'learning');
    assert.deepEqual(await pageProblems(page), []);
  });

  test('should say what Sign out everywhere did', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/settings/account`);
    await page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
    await page.getByRole('status').getByText(/You are signed out everywhere: \d+ sessions? ended/).waitFor();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'signed-out-everywhere', 'learning');
  });
});
