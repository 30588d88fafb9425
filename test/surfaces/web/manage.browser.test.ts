// Managing decks in headless Chromium, found by accessible names only: New deck then cards added
// one after another (and one deleted), a pasted import with its warnings, a CSV file import, an export downloaded,
// and the editor of a 250-card deck (Front within 10 Tab presses, search as you type). Every new
// page state is checked by axe at 1280 and 360 px, never scrolls sideways at 360 px, and is
// screenshotted to test-artifacts/learning/manage-*.png.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { before, describe, test } from 'node:test';
import { browserSkipReason, pageProblems } from '../../helpers/browser.ts';
import { browserSuite, checkPageState } from '../../helpers/web.ts';
import type { TestUser } from '../../helpers/server.ts';

const PASTED = '---\nversion: 1\n---\n# Pasted in the browser\n\n## Front\nWhat is 2 + 2?\n\n## Back\n4\n\n---\n\n## Back\nA card with only a back\n';

describe('managing decks in headless Chromium', { skip: browserSkipReason() }, () => {
  const suite = browserSuite();
  let owner: TestUser;

  const pageAs = (user: TestUser) => suite.pageAs(user, { width: 1280, height: 900 });

  before(async () => {
    owner = await suite.server.user();
  });

  test('should make a new deck from the home page and add cards one after another, each time on a new card form', async () => {
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('link', { name: 'New deck' }).click();
    await page.getByRole('heading', { name: 'New deck' }).waitFor();
    await checkPageState(page, 'new-deck');
    await page.getByLabel('Title').fill('Capitals');
    await page.getByRole('button', { name: 'Create deck' }).click();
    await page.getByRole('heading', { name: 'Edit “Capitals”' }).waitFor();
    await page.getByText('Deck created.').waitFor();
    await checkPageState(page, 'editor-new-deck');
    assert.equal(await page.locator('link[href*="katex"]').count(), 0, 'no formula, no KaTeX stylesheet');
    await page.getByLabel('Front', { exact: true }).fill('$E = mc^2$');
    await page.locator('link[href*="katex"]').waitFor({ state: 'attached' });
    await page.getByRole('region', { name: 'Preview' }).locator('.katex').first().waitFor();
    for (const [front, back] of [['France', 'Paris'], ['Spain', 'Madrid']]) {
      await page.getByLabel('Front', { exact: true }).fill(front);
      await page.getByLabel('Back', { exact: true }).fill(back);
      await page.getByRole('button', { name: 'Add card' }).click();
      await page.getByRole('status').getByText(/Card \d added\./).waitFor();
      assert.equal(await page.getByLabel('Front', { exact: true }).inputValue(), '', 'the form is a new card\'s');
      assert.equal(await page.getByRole('button', { name: 'Add card' }).count(), 1);
      // Autofocus lands once the new form has loaded, which may be just after the status shows.
      await page.waitForFunction("document.activeElement && document.activeElement.id === 'card-front'", undefined, { timeout: 5000 }).catch(() => undefined);
      assert.equal(await page.evaluate('document.activeElement && document.activeElement.id'), 'card-front', 'the next card is written at once');
    }
    await checkPageState(page, 'editor-card-added');
    await page.getByRole('link', { name: 'Card 1: France' }).click();
    await page.getByRole('heading', { name: 'Card 1' }).waitFor();
    await checkPageState(page, 'editor-card');
    await page.getByRole('button', { name: 'Delete card' }).click();
    await page.getByRole('status').getByText('Card deleted.').waitFor();
    assert.deepEqual(await page.getByRole('region', { name: 'Cards (1)' }).getByRole('link').allTextContents(), ['Card 1: Spain']);
    const deckId = /\/decks\/(dck_[\w-]+)\/edit/.exec(page.url())?.[1];
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.deepEqual(read.body.cards.map((c: any) => [c.front, c.back]), [['Spain', 'Madrid']]);
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });

  test('should import pasted markdown and show its warnings, and say what is wrong with a paste it cannot read', async () => {
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('link', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import decks' }).waitFor();
    await checkPageState(page, 'import');
    await page.getByLabel('Markdown', { exact: true }).fill('# no front matter\n');
    await page.getByRole('button', { name: 'Import Markdown' }).click();
    await page.getByRole('alert').getByText(/Line 1: the document must start with front matter/).waitFor();
    await checkPageState(page, 'import-refused');
    await page.getByLabel('Markdown', { exact: true }).fill(PASTED);
    await page.getByRole('button', { name: 'Import Markdown' }).click();
    await page.getByRole('status').getByText('One deck was imported.').waitFor();
    await page.getByRole('heading', { name: 'Pasted in the browser' }).waitFor();
    await page.getByRole('listitem').getByText(/A card has no front; only its back is shown\. Card 2\./).waitFor();
    await checkPageState(page, 'imported');
    await page.getByRole('link', { name: 'Edit Pasted in the browser' }).click();
    await page.getByRole('heading', { name: 'Edit “Pasted in the browser”' }).waitFor();
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });

  test('should import a CSV file chosen in the form, and export the deck as CSV, markdown and an Anki package', async () => {
    const { page } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/import`);
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'Irregular verbs.csv', mimeType: 'text/csv', buffer: Buffer.from('front,back\ngo,went\nsee,saw\n') });
    await page.getByRole('button', { name: 'Import file' }).click();
    await page.getByRole('heading', { name: 'Irregular verbs' }).waitFor();
    await page.getByRole('link', { name: 'Edit Irregular verbs' }).click();
    const exports = page.getByRole('region', { name: 'Export' });
    const files: Record<string, string> = {};
    for (const name of ['CSV (.csv)', 'Markdown (.md)', 'Anki package (.apkg)']) {
      const [download] = await Promise.all([page.waitForEvent('download'), exports.getByRole('link', { name }).click()]);
      files[name] = download.suggestedFilename();
      const saved = await download.path();
      const bytes = fs.readFileSync(saved);
      if (name.startsWith('CSV')) assert.match(bytes.toString(), /go,went/);
      if (name.startsWith('Markdown')) assert.match(bytes.toString(), /## Front\ngo/);
      if (name.startsWith('Anki')) assert.equal(bytes.subarray(0, 2).toString(), 'PK');
    }
    assert.deepEqual(Object.values(files), ['Irregular verbs.csv', 'Irregular verbs.md', 'Irregular verbs.apkg']);
  });

  test('should reach Front of a new card within 10 Tab presses in the editor of a 250-card deck, and filter its card list as one types', async () => {
    const cards = Array.from({ length: 250 }, (_, i) => ({ front: `Question ${i + 1}: what comes after ${i}?`, back: `${i + 1}` }));
    const res = await suite.server.api('POST', '/decks/import', { token: owner.token, json: { deck: { title: 'Big deck', lang: 'en' }, cards } });
    assert.equal(res.status, 201, res.text);
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${res.body.deckId}/edit`);
    await page.waitForLoadState('load');
    let presses = 0;
    while (presses < 40) {
      await page.keyboard.press('Tab');
      presses++;
      if (await page.evaluate('document.activeElement && document.activeElement.id') === 'card-front') break;
    }
    assert.ok(presses <= 10, `Front took ${presses} Tab presses`);
    assert.equal(await page.getByRole('region', { name: 'Cards (250)' }).getByRole('link', { name: /^Card \d+:/ }).count(), 250);
    await checkPageState(page, 'editor-250');
    await page.getByRole('searchbox', { name: 'Search cards' }).fill('after 136?');
    await page.getByRole('status').getByText('1 card matches').waitFor();
    assert.equal(await page.getByRole('link', { name: /^Card \d+:/ }).count(), 1);
    await page.getByRole('link', { name: 'Card 137: Question 137: what comes after 136?' }).click();
    await page.getByRole('heading', { name: 'Card 137' }).waitFor();
    assert.equal(await page.getByLabel('Front', { exact: true }).inputValue(), 'Question 137: what comes after 136?');
    assert.equal(await page.getByRole('searchbox', { name: 'Search cards' }).inputValue(), 'after 136?', 'the search is kept');
    await checkPageState(page, 'editor-250-card');
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });
});
