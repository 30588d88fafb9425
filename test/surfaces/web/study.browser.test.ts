// Studying the way Anki users do it (DECISIONS "Web pages"), in headless Chromium, by accessible
// names: the home page's due and new counts and `Study now`, Space and Enter meaning Good once the
// answer is shown (focus on Good), the intervals on the rating buttons, rating without a reload,
// a one-sided card, nothing due (when the next card is, `Study anyway`) and cards that come due or
// are added later showing up, the end screen naming cards by their fronts; axe and 360 px on each
// state. Screenshots go to test-artifacts/learning.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserSkipReason, hookedContext, launchChromium, pageProblems, screenshot, watchDialogs } from '../../helpers/browser.ts';
import { signInBrowser } from '../../helpers/web.ts';
import { manualClock, type TestUser, buildForSuite } from '../../helpers/server.ts';

const DAY = 86_400_000;

describe('studying in headless Chromium', { skip: browserSkipReason() }, () => {
  const time = manualClock(Date.now());
  let owner: TestUser;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  async function ownerPage(): Promise<{ page: Page; seen: string[] }> {
    const context = await hookedContext(browser, suite.server.url);
    contexts.push(context);
    await signInBrowser(context, suite.server, owner);
    const page = await context.newPage();
    const seen: string[] = [];
    watchDialogs(page, seen);
    return { page, seen };
  }

  async function importDeck(title: string, cards: { front: string; back?: string; oneSided?: boolean }[]): Promise<string> {
    const res = await suite.server.api('POST', '/decks/import', { token: owner.token, json: { deck: { title, lang: 'en', visibility: 'private' }, cards } });
    assert.equal(res.status, 201, res.text);
    return res.body.deckId as string;
  }

  /** Axe finds nothing, and the page does not scroll sideways, at 1280 and at 360 px. */
  async function checkState(page: Page, name: string): Promise<void> {
    await page.setViewportSize({ width: 1280, height: 800 });
    assert.deepEqual(await axeViolations(page), [], `${name}: axe at 1280 px`);
    await screenshot(page, name, 'learning');
    await page.setViewportSize({ width: 360, height: 800 });
    assert.deepEqual(await axeViolations(page), [], `${name}: axe at 360 px`);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0, `${name}: no sideways scroll at 360 px`);
    await screenshot(page, `${name}-360`, 'learning');
    await page.setViewportSize({ width: 1280, height: 800 });
  }

  async function focusedName(page: Page): Promise<string> {
    return page.evaluate('document.activeElement ? document.activeElement.firstElementChild?.textContent ?? document.activeElement.textContent : ""');
  }

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });
  const suite = buildForSuite({ overrides: { clock: time.clock }, socket: true });
  before(async () => {
    owner = await suite.server.user();
    browser = await launchChromium();
  });

  test('should study from the home page with the keys, Space and Enter meaning Good, without a reload per rating', async () => {
    const deckId = await importDeck('Capitals', [
      { front: 'Capital of France?', back: 'Paris' },
      { front: 'Capital of Peru?', back: 'Lima' },
      { front: 'Capital of Chad?', back: 'N’Djamena' },
    ]);
    // A title with no place to break must not push Study now or Edit off a phone's screen.
    await importDeck('Pneumonoultramicroscopicsilicovolcanoconiosis_and_its_cousins_in_one_word', [{ front: 'Long', back: 'Word' }]);
    const { page, seen } = await ownerPage();
    await page.goto(`${suite.server.url}/`);
    const row = page.getByRole('row', { name: /Capitals/ });
    assert.deepEqual(await row.getByRole('cell').allTextContents().then((cells) => cells.slice(0, 2)), ['0', '3'], 'due 0, new 3');
    await page.getByRole('link', { name: 'Edit Capitals' }).waitFor();
    await checkState(page, 'study-home');
    await page.setViewportSize({ width: 360, height: 800 });
    for (const name of ['Edit Capitals', 'Edit Pneumonoultramicroscopicsilicovolcanoconiosis_and_its_cousins_in_one_word']) {
      const box = await page.getByRole('link', { name }).boundingBox();
      assert.ok(box !== null && box.x >= 0 && box.x + box.width <= 360, `${name} is on screen at 360 px`);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await row.getByRole('button', { name: 'Study now' }).click();
    await page.waitForURL((url) => url.pathname === `/decks/${deckId}`);
    await page.waitForLoadState('load');
    await page.evaluate('window.__sameDocument = true');
    const sessionId = await page.locator('input[name="sessionId"]').inputValue();
    const answer = page.getByRole('heading', { name: 'Answer' });

    // Card 1: Space shows the answer with focus on Good, and Space rates Good.
    await page.getByRole('button', { name: 'Show answer' }).waitFor();
    await checkState(page, 'study-front');
    await page.keyboard.press('Space');
    await answer.waitFor({ state: 'visible' });
    assert.equal(await focusedName(page), 'Good', 'focus sits on Good');
    const buttons = page.getByRole('group', { name: 'How well did you know it?' }).getByRole('button');
    assert.deepEqual(await buttons.evaluateAll((list) => list.map((b: any) => b.innerText.replace(/\s+/g, ' ').trim())),
      ['Again 1m', 'Hard 6m', 'Good 10m', 'Easy 8d'], 'each button shows the interval it gives');
    for (const name of ['Again', 'Hard', 'Good', 'Easy']) assert.equal(await page.getByRole('button', { name, exact: true }).count(), 1, `button named exactly ${name}`);
    await checkState(page, 'study-answer');
    await page.keyboard.press('Space');
    await page.getByText('Card 2 of 3 · 1 answered').waitFor();

    // Card 2: Enter shows the answer, Enter rates Good.
    await page.keyboard.press('Enter');
    await answer.waitFor({ state: 'visible' });
    await page.keyboard.press('Enter');
    await page.getByText('Card 3 of 3 · 2 answered').waitFor();

    // Card 3: the key 4 is Easy.
    await page.keyboard.press('Space');
    await answer.waitFor({ state: 'visible' });
    await page.keyboard.press('4');
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();
    assert.equal(await page.evaluate('window.__sameDocument'), true, 'the ratings swapped cards in without a reload');
    const names = await page.locator('.due-list .due-name').allTextContents();
    assert.deepEqual(names, ['Capital of France?', 'Capital of Peru?', 'Capital of Chad?'], 'the summary names cards by their fronts');
    await page.getByText('in 10 minutes').first().waitFor();
    assert.match(await page.locator('.due-list time').first().getAttribute('title') ?? '', /^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/, 'the exact time on hover');
    await checkState(page, 'study-complete');

    const read = await suite.server.api('GET', `/reviews/${sessionId}`, { token: owner.token });
    assert.deepEqual(read.body.answers.map((a: any) => a.rating), ['good', 'good', 'easy']);
    assert.equal(read.body.status, 'completed');
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });

  test('should rate a one-sided card without a Show answer button', async () => {
    const deckId = await importDeck('One side', [{ front: 'Say hello in Welsh', oneSided: true }]);
    const { page } = await ownerPage();
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.getByRole('button', { name: 'Good', exact: true }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Show answer' }).count(), 0);
    assert.equal(await page.getByText('This card has no back').count(), 0);
    await checkState(page, 'study-one-sided');
    await page.waitForLoadState('load');
    await page.keyboard.press('Space');
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();
  });

  test('should say when the next card is due when nothing is, and show cards that come due or are added later', async () => {
    const deckId = await importDeck('Later', [{ front: 'First card', back: 'One' }]);
    const { page } = await ownerPage();
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.waitForLoadState('load');
    await page.keyboard.press('Space');
    await page.keyboard.press('4');
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();

    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.getByRole('heading', { name: 'Nothing due now' }).waitFor();
    await page.getByText('The next card is due in 8 days').waitFor();
    await checkState(page, 'study-nothing-due');
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('row', { name: /Later/ }).getByText('Next due in 8 days').waitFor();

    // A card added through the API while nothing was due shows up on the next visit.
    const added = await suite.server.api('POST', `/decks/${deckId}/cards`, { token: owner.token, json: { cards: [{ front: 'Added by an agent', back: 'Two' }] } });
    assert.equal(added.status, 200, added.text);
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.getByText('Added by an agent').waitFor();
    await page.waitForLoadState('load');
    await page.keyboard.press('Space');
    await page.keyboard.press('4');
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();

    // Nine days on, both cards came due: the home page counts them and the view shows them.
    time.ms += 9 * DAY;
    await page.goto(`${suite.server.url}/`);
    const cells = await page.getByRole('row', { name: /Later/ }).getByRole('cell').allTextContents();
    assert.deepEqual(cells.slice(0, 2), ['2', '0'], 'due 2, new 0');
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.getByText('Card 1 of 2').waitFor();
    await page.getByRole('button', { name: 'Show answer' }).waitFor();
  });

  test('should let a card be browsed with Study anyway when nothing is due', async () => {
    const deckId = await importDeck('Browse', [{ front: 'Only card', back: 'Its back' }]);
    const { page } = await ownerPage();
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    await page.waitForLoadState('load');
    await page.keyboard.press('Space');
    await page.keyboard.press('3');
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();
    await page.getByRole('link', { name: 'Study anyway' }).click();
    await page.getByText('Only card').waitFor();
    await page.getByRole('link', { name: 'Next' }).count();
    await checkState(page, 'study-anyway');
  });
});
