// A token's activity log in headless Chromium: each call's status with its error code, nothing cut
// off at 1280 px (the table fits its region, even with the longest route's call open), the rest of
// a call one click away (More), the new token's page shown once; axe at 1280 and 360 px; at 360 px
// each call a block (no sideways scroll, status and error code in view, details right under the
// call), still a table to the browser's accessibility tree; what Sign out everywhere did.
// Screenshots go to test-artifacts/learning.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { axeViolations, browserSkipReason, hookedContext, launchChromium, pageProblems, screenshot } from '../../helpers/browser.ts';
import { signInBrowser } from '../../helpers/web.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

describe('activity log in headless Chromium', { skip: browserSkipReason() }, () => {
  let owner: TestUser;
  let browser: Browser;
  let context: BrowserContext;

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await context?.close();
    await browser?.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    owner = await suite.server.user();
    browser = await launchChromium();
    context = await hookedContext(browser, suite.server.url);
    await signInBrowser(context, suite.server, owner);
  });

  test('should show every call with its error code, uncut at 1280 px, with the rest one click away', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${suite.server.url}/settings/tokens/new`);
    await page.getByLabel('Name', { exact: true }).fill('Agent');
    await page.getByRole('checkbox', { name: 'decks:read', exact: true }).check();
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    const token = await page.getByRole('textbox', { name: 'New token', exact: true }).inputValue();
    await screenshot(page, 'token-created', 'learning');
    assert.deepEqual(await axeViolations(page), []);

    await suite.server.api('GET', '/decks/dck_doesnotexist000000000', { token, headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36 agent' } });
    await suite.server.api('POST', '/decks/import', { token, json: {} });
    await suite.server.api('GET', '/whoami', { token });
    await suite.server.app.activity.flush();
    await page.getByRole('link', { name: 'Token details and activity' }).click();
    await page.getByRole('cell', { name: '404 DECK_NOT_FOUND' }).waitFor();
    await page.getByRole('cell', { name: '403 FORBIDDEN' }).waitFor();
    // The section's name is one region (the scrolling table's region is named apart from it).
    assert.equal(await page.getByRole('region', { name: 'Activity' }).count(), 1);
    const region = page.getByRole('region', { name: 'Call list (scrolls sideways)' });
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

  test('should stack each call at 360 px, in view and still a table, with its details right under it', async () => {
    const page = await context.newPage();
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(`${suite.server.url}/settings/tokens/new`);
    await page.getByLabel('Name', { exact: true }).fill('Phone');
    await page.getByRole('checkbox', { name: 'decks:read', exact: true }).check();
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    const token = await page.getByRole('textbox', { name: 'New token', exact: true }).inputValue();
    // The longest route there is and a long user agent: both must wrap inside the block.
    await suite.server.api('POST', '/decks/dck_doesnotexist000000000/cards/crd_doesnotexist000000000/move', { token, json: { position: 1 } });
    await suite.server.api('GET', '/decks/dck_doesnotexist000000000', { token, headers: { 'user-agent': 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 agent' } });
    await suite.server.api('GET', '/whoami', { token });
    await suite.server.app.activity.flush();
    await page.getByRole('link', { name: 'Token details and activity' }).click();

    const region = page.getByRole('region', { name: 'Call list (scrolls sideways)' });
    const errorCell = page.getByRole('cell', { name: '404 DECK_NOT_FOUND' });
    await errorCell.waitFor();
    await screenshot(page, 'token-activity-stacked-360', 'learning');
    const noSidewaysScroll = async (when: string) => {
      assert.ok(await page.evaluate('document.documentElement.scrollWidth <= document.documentElement.clientWidth'), `the page does not scroll sideways ${when}`);
      assert.ok(await region.evaluate((el: any) => el.scrollWidth <= el.clientWidth), `the activity region does not scroll sideways ${when}`);
    };
    await noSidewaysScroll('at 360 px');
    const inView = async (what: string, box: { x: number; width: number } | null) => {
      assert.ok(box, `${what} is shown`);
      assert.ok(box.x >= 0 && box.x + box.width <= 360, `${what} is within the 360 px viewport (x ${box.x}, width ${box.width})`);
    };
    const errorRow = page.getByRole('row').filter({ has: errorCell });
    await inView('the status', await errorRow.locator('.http-status').boundingBox());
    await inView('the error code', await errorRow.getByText('DECK_NOT_FOUND', { exact: true }).boundingBox());
    await inView('the 403 on the longest route', await page.getByRole('cell', { name: '403 FORBIDDEN' }).boundingBox());
    await inView('the longest route', await page.getByText('/api/v1/decks/:deckId/cards/:cardId/move').boundingBox());
    await inView('More', await errorRow.locator('summary').boundingBox());
    assert.deepEqual(await axeViolations(page), []);

    // Still a table to assistive technology, not only to the DOM: Chromium's own accessibility tree.
    const cdp = await context.newCDPSession(page);
    const { nodes } = (await cdp.send('Accessibility.getFullAXTree')) as { nodes: { role?: { value?: string }; name?: { value?: string } }[] };
    const roles = (role: string) => nodes.filter((n) => n.role?.value === role).map((n) => n.name?.value ?? '');
    assert.equal(roles('table').length, 1, 'one table');
    assert.deepEqual(roles('columnheader'), ['Time (UTC)', 'Method', 'Route', 'Status', 'Duration', 'Details']);
    assert.ok(roles('cell').includes('404 DECK_NOT_FOUND'), 'the status cell with its error code');
    await cdp.detach();

    await errorRow.locator('summary').click();
    const requestId = errorRow.getByText('Request id', { exact: true });
    await requestId.waitFor();
    await inView('the opened details', await errorRow.locator('details dl').boundingBox());
    await inView('the user agent', await errorRow.getByText(/Pixel 8/).boundingBox());
    // Right under the call, with no tall empty space: the block ends where its details end.
    const status = (await errorRow.locator('.http-status').boundingBox())!;
    const details = (await errorRow.locator('details dl').boundingBox())!;
    const row = (await errorRow.boundingBox())!;
    assert.ok(details.y > status.y + status.height && details.y - (status.y + status.height) < 48, `the details start right under the call (${details.y - status.y - status.height} px below its status)`);
    assert.ok(row.y + row.height - (details.y + details.height) < 16, `no empty space under the details (${row.y + row.height - details.y - details.height} px)`);
    await noSidewaysScroll('with a call opened');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'token-activity-stacked-360-open', 'learning');
    // WCAG's reflow width too, with More focused from the keyboard (its outline must not be clipped).
    await page.setViewportSize({ width: 320, height: 800 });
    await noSidewaysScroll('at 320 px');
    await errorRow.locator('summary').focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    await screenshot(page, 'token-activity-stacked-320-focus', 'learning');

    // At desktop widths it is the table it was: a header row in view, each call on one line.
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.ok(await page.getByRole('columnheader', { name: 'Status', exact: true }).isVisible(), 'the header row shows');
    const time = (await errorRow.locator('td.time').boundingBox())!;
    const more = (await errorRow.locator('td.more').boundingBox())!;
    assert.equal(Math.round(time.y), Math.round(more.y), 'time and More on one line');
    assert.deepEqual(await axeViolations(page), []);
    // Closed, even the longest route fits on its line.
    await errorRow.locator('summary').click();
    await requestId.waitFor({ state: 'hidden' });
    assert.ok(await region.evaluate((el: any) => el.scrollWidth <= el.clientWidth), 'nothing cut off at 1280 px');
    await screenshot(page, 'token-activity-stacked-1280', 'learning');
    // Opened next to the longest route, the details' 18rem once pushed the table about 120 px past
    // its region: now the route gives way (it breaks only before a slash) and still reads whole.
    const longestRoute = '/api/v1/decks/:deckId/cards/:cardId/move';
    const longestRow = page.getByRole('row').filter({ has: page.getByRole('cell', { name: longestRoute, exact: true }) });
    await longestRow.locator('summary').click();
    await longestRow.getByText('Request id', { exact: true }).waitFor();
    const overflow = await region.evaluate((el: any) => el.scrollWidth - el.clientWidth);
    assert.ok(overflow <= 0, `the activity region does not scroll sideways at 1280 px with the longest route's call open (${overflow} px too wide)`);
    await noSidewaysScroll('at 1280 px with the longest route\'s call open');
    const [routeTop, moreTop] = await Promise.all([longestRow.locator('td.route').boundingBox(), longestRow.locator('td.more').boundingBox()]);
    assert.equal(Math.round(routeTop!.y), Math.round(moreTop!.y), 'the call still starts on one line');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'token-activity-1280-longest-open', 'learning');
    assert.deepEqual(await pageProblems(page), []);
  });

  test('should say what Sign out everywhere did', async () => {
    const page = await context.newPage();
    await page.goto(`${suite.server.url}/settings/account`);
    await page.getByRole('button', { name: 'Sign out everywhere', exact: true }).click();
    await page.getByRole('status').getByText(/You are signed out everywhere: \d+ sessions? ended/).waitFor();
    await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'signed-out-everywhere', 'learning');
  });
});
