// Delete card, Delete deck and Restore, and Explore with Copy to my decks in headless Chromium,
// found by accessible names only; axe at 1280 and 360 px, no sideways scroll at 360 px, and a
// screenshot (test-artifacts/learning/manage-*.png) of every new page state.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { browserSkipReason, pageProblems } from '../../helpers/browser.ts';
import { browserSuite, checkPageState } from '../../helpers/web.ts';
import type { TestUser } from '../../helpers/server.ts';

describe('trash and public decks in headless Chromium', { skip: browserSkipReason() }, () => {
  const suite = browserSuite();
  let owner: TestUser;

  const pageAs = (user: TestUser | null) => suite.pageAs(user, { width: 1280, height: 900 });

  async function deckOf(user: TestUser, title: string, visibility = 'private'): Promise<string> {
    const res = await suite.server.api('POST', '/decks/import', {
      token: user.token,
      json: { deck: { title, lang: 'en', visibility, description: `All about ${title.toLowerCase()}.`, tags: ['biology'] }, cards: [{ front: 'One', back: '1' }, { front: 'Two', back: '2' }, { front: 'Three', back: '3' }] },
    });
    assert.equal(res.status, 201, res.text);
    return res.body.deckId;
  }

  before(async () => {
    owner = await suite.server.user();
  });

  test('should delete a card from its form, then delete the deck after confirming and restore it from the trash', async () => {
    const deckId = await deckOf(owner, 'Numbers');
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${deckId}/edit`);
    await page.getByRole('link', { name: 'Card 2: Two' }).click();
    await page.getByRole('heading', { name: 'Card 2' }).waitFor();
    await page.getByRole('button', { name: 'Delete card' }).click();
    await page.getByRole('status').getByText('Card deleted.').waitFor();
    assert.deepEqual(await page.getByRole('region', { name: 'Cards (2)' }).getByRole('link').allTextContents(), ['Card 1: One', 'Card 2: Three']);
    await page.getByRole('link', { name: 'Delete deck' }).click();
    await page.getByRole('heading', { name: 'Delete “Numbers”?' }).waitFor();
    await checkPageState(page, 'delete-deck');
    await page.getByRole('button', { name: 'Delete deck' }).click();
    await page.getByRole('heading', { name: 'Trash' }).waitFor();
    await page.getByRole('status').getByText('“Numbers” is in the trash.').waitFor();
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token })).status, 404);
    await checkPageState(page, 'trash');
    await page.getByRole('row', { name: /Numbers/ }).getByRole('button', { name: 'Restore' }).click();
    await page.getByRole('status').getByText('“Numbers” is restored.').waitFor();
    await page.getByText('The trash is empty.').waitFor();
    await checkPageState(page, 'trash-restored');
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.deepEqual(read.body.cards.map((c: any) => c.front), ['One', 'Three']);
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });

  test('should find a public deck in Explore and copy it into my decks', async () => {
    const author = await suite.server.user();
    await deckOf(author, 'Cell biology', 'public');
    await deckOf(author, 'Plant biology', 'public');
    await deckOf(author, 'Hidden biology', 'unlisted');
    const { page: visitor } = await pageAs(null);
    await visitor.goto(`${suite.server.url}/explore`);
    await visitor.getByRole('heading', { name: 'Explore public decks' }).waitFor();
    await checkPageState(visitor, 'explore-signed-out');
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/`);
    await page.getByRole('link', { name: 'Explore public decks' }).click();
    await page.getByRole('searchbox', { name: 'Search public decks' }).fill('cell');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').getByText('Public decks matching “cell”').waitFor();
    assert.equal(await page.getByRole('heading', { name: 'Plant biology' }).count(), 0);
    assert.equal(await page.getByRole('heading', { name: 'Hidden biology' }).count(), 0);
    await checkPageState(page, 'explore-search');
    await page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'Cell biology' }) }).getByRole('button', { name: 'Copy to my decks' }).click();
    await page.getByRole('heading', { name: 'Edit “Cell biology”' }).waitFor();
    await page.getByText('Copied into your decks').waitFor();
    await checkPageState(page, 'editor-copied');
    const mine = await suite.server.api('GET', '/decks', { token: owner.token });
    assert.ok(mine.body.items.some((d: any) => d.title === 'Cell biology' && d.visibility === 'private'));
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });
});
