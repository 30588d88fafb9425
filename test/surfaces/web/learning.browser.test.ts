// The learning view and the editor in headless Chromium, found by accessible names only: studying
// with the keyboard (the session read back through the API), editing a card, a concurrent API
// change shown on save, who may open which deck, and axe-core on both pages. Screenshots go to
// test-artifacts/learning.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { axeViolations, browserSkipReason, pageProblems, screenshot } from '../../helpers/browser.ts';
import { setPassword } from '../../../src/modules/users/users.service.ts';
import { TEST_PASSWORD, browserSuite } from '../../helpers/web.ts';
import type { TestUser } from '../../helpers/server.ts';

describe('learning view and editor in headless Chromium', { skip: browserSkipReason() }, () => {
  const suite = browserSuite();
  let owner: TestUser;
  let other: TestUser;

  const pageAs = (user: TestUser | null) => suite.pageAs(user);

  async function importDeck(visibility: string, cards: { front: string; back: string }[]): Promise<{ deckId: string; cardIds: string[] }> {
    const res = await suite.server.api('POST', '/decks/import', { token: owner.token, json: { deck: { title: `A ${visibility} deck`, lang: 'en', visibility }, cards } });
    assert.equal(res.status, 201, res.text);
    const deck = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: owner.token });
    return { deckId: res.body.deckId, cardIds: deck.body.cards.map((c: any) => c.id) };
  }

  before(async () => {
    owner = await suite.server.user();
    other = await suite.server.user();
  });

  test('should study a deck with the keyboard and record the session the API reads', async () => {
    const { deckId } = await importDeck('private', [
      { front: 'What is $E = mc^2$?', back: '- ✓ energy\n- ✗ mass only' },
      { front: 'Second', back: 'Two' },
      { front: 'Third', back: 'Three' },
    ]);
    const { page, seen } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    const answer = page.getByRole('heading', { name: 'Answer' });
    const sessionId = await page.locator('input[name="sessionId"]').inputValue();
    // A relearn session (DECISIONS): the card rated Again (1) comes back at the end, rated Good (3).
    for (const key of ['3', '1', '4', '3']) {
      await page.getByRole('button', { name: 'Show answer' }).waitFor();
      await page.waitForLoadState('load'); // learn.js (deferred) is listening for keys
      assert.equal(await answer.isVisible(), false, 'the answer starts hidden');
      await page.keyboard.press('Space');
      await answer.waitFor({ state: 'visible' });
      if (key === '3') await screenshot(page, 'learning-view-answer', 'learning');
      await page.keyboard.press(key);
    }
    await page.getByRole('heading', { name: 'Session complete' }).waitFor();
    await screenshot(page, 'learning-view-complete', 'learning');
    const read = await suite.server.api('GET', `/reviews/${sessionId}`, { token: owner.token });
    assert.equal(read.status, 200);
    assert.equal(read.body.status, 'completed');
    assert.deepEqual(read.body.answers.map((a: any) => a.rating), ['good', 'again', 'easy', 'good']);
    assert.equal(read.body.answers[3].cardId, read.body.answers[1].cardId, 'the card rated Again came back');
    assert.ok(read.body.answers.every((a: any) => Number.isInteger(a.durationMs)), 'the page measured each answer');
    assert.deepEqual(await pageProblems(page), []);
    assert.deepEqual(seen, []);
  });

  test('should save a card edited in the editor, and the API reads the change', async () => {
    const { deckId, cardIds } = await importDeck('private', [{ front: 'Old front', back: 'Old back' }]);
    const { page } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${deckId}/edit?card=${cardIds[0]}`);
    await page.getByLabel('Front', { exact: true }).fill('New **front**');
    await page.getByRole('region', { name: 'Preview' }).getByText('front', { exact: true }).waitFor();
    await screenshot(page, 'editor-preview', 'learning');
    await page.getByRole('form', { name: 'Card 1' }).getByRole('button', { name: 'Save' }).click();
    await page.getByText('Card saved.').waitFor();
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(read.body.cards[0].front, 'New **front**');
    assert.deepEqual(await pageProblems(page), []);
  });

  test('should let a test or a screen reader find each named field and button of the editor by its name alone, one per view', async () => {
    const { deckId, cardIds } = await importDeck('private', [{ front: 'Front', back: 'Back' }]);
    const { page } = await pageAs(owner);
    const once = async (what: string, locator: ReturnType<Page['getByLabel']>) => assert.equal(await locator.count(), 1, what);
    await page.goto(`${suite.server.url}/decks/${deckId}/edit`);
    for (const name of ['Title', 'Description', 'Front', 'Back']) await once(`label ${name}`, page.getByLabel(name));
    for (const name of ['Save', 'Add card']) await once(`button ${name}`, page.getByRole('button', { name }));
    await page.goto(`${suite.server.url}/decks/${deckId}/edit?card=${cardIds[0]}`);
    for (const name of ['Front', 'Back']) await once(`label ${name}`, page.getByLabel(name));
    await once('button Save', page.getByRole('button', { name: 'Save' }));
    await screenshot(page, 'editor-card', 'learning');
    assert.deepEqual(await axeViolations(page), []);
    await page.setViewportSize({ width: 360, height: 800 });
    await screenshot(page, 'editor-card-360', 'learning');
    assert.deepEqual(await axeViolations(page), []);
    assert.equal(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'), 0);
  });

  /** Types into `field`, saves `form` over a change made meanwhile, and checks the page says so, keeps the typing and shows `shown` as saved. */
  async function saveOverAChange(page: Page, change: { form: string; field: string; typed: string; shown: string }): Promise<void> {
    await page.getByLabel(change.field, { exact: true }).fill(change.typed);
    await page.getByRole('form', { name: change.form }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').getByText('This deck was changed meanwhile').waitFor();
    assert.equal(await page.getByLabel(change.field, { exact: true }).inputValue(), change.typed);
    await page.getByRole('region', { name: 'Saved version' }).getByText(change.shown).waitFor();
  }

  test('should show a concurrent API change when the editor saves, keeping what was typed', async () => {
    const { deckId, cardIds } = await importDeck('private', [{ front: 'Front', back: 'Back' }]);
    const { page } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${deckId}/edit?card=${cardIds[0]}`);
    const patched = await suite.server.api('PATCH', `/decks/${deckId}/cards/${cardIds[0]}`, { token: owner.token, json: { back: 'Changed by an agent' } });
    assert.equal(patched.status, 200);
    await saveOverAChange(page, { form: 'Card 1', field: 'Front', typed: 'Typed in the editor', shown: 'Changed by an agent' });
    await screenshot(page, 'editor-conflict', 'learning');
    const read = await suite.server.api('GET', `/decks/${deckId}`, { token: owner.token });
    assert.equal(read.body.cards[0].front, 'Front', 'nothing was overwritten');
  });

  test('should show the deck details a concurrent API change saved when the editor saves its own, at 360 px without axe violations', async () => {
    const { deckId } = await importDeck('private', [{ front: 'Front', back: 'Back' }]);
    const { page } = await pageAs(owner);
    await page.setViewportSize({ width: 360, height: 800 });
    await page.goto(`${suite.server.url}/decks/${deckId}/edit`);
    const patched = await suite.server.api('PATCH', `/decks/${deckId}`, { token: owner.token, json: { description: 'Described by an agent' } });
    assert.equal(patched.status, 200);
    await saveOverAChange(page, { form: 'Deck details', field: 'Title', typed: 'Typed title', shown: 'Described by an agent' });
    await screenshot(page, 'editor-deck-conflict-360', 'learning');
    assert.deepEqual(await axeViolations(page), []);
    assert.ok(await page.evaluate(() => {
      const w = globalThis as any;
      return w.document.documentElement.scrollWidth <= w.innerWidth;
    }), 'no sideways scrolling at 360 px');
    assert.deepEqual(await pageProblems(page), []);
  });

  test('should refuse a private deck to another account and to a signed-out visitor, and show an unlisted deck to a signed-out visitor', async () => {
    const { deckId: privateDeck } = await importDeck('private', [{ front: 'Secret', back: 'Hidden' }]);
    const { deckId: unlistedDeck } = await importDeck('unlisted', [{ front: 'By link', back: 'Shared' }]);
    await setPassword(suite.server.app.services, { email: other.email, password: TEST_PASSWORD });
    for (const user of [other, null]) {
      const { page } = await pageAs(null);
      if (user !== null) {
        // Signed in the way a person does it, by the fields' and button's names.
        await page.goto(`${suite.server.url}/signin`);
        await page.getByLabel('Email').fill(user.email);
        await page.getByLabel('Password').fill(TEST_PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.getByRole('button', { name: 'Sign out' }).waitFor();
      }
      const res = await page.goto(`${suite.server.url}/decks/${privateDeck}`);
      assert.equal(res?.status(), 404);
      assert.equal(await page.getByText('Secret').count(), 0);
      await screenshot(page, `private-deck-refused-${user === null ? 'signed-out' : 'other-account'}`, 'learning');
    }
    const { page } = await pageAs(null);
    const res = await page.goto(`${suite.server.url}/decks/${unlistedDeck}`);
    assert.equal(res?.status(), 200);
    await page.getByRole('heading', { name: 'A unlisted deck' }).waitFor();
    await page.getByText('By link').waitFor();
    await page.getByRole('button', { name: 'Show answer' }).click();
    await page.getByText('Shared').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Good' }).count(), 0, 'only the owner rates');
    await page.getByRole('link', { name: 'Next' }).count();
    await screenshot(page, 'unlisted-deck-signed-out', 'learning');
  });

  test('should pass axe-core on the learning view and the editor', async () => {
    const { deckId, cardIds } = await importDeck('public', [
      { front: '| a | b |\n|---|:-:|\n| 1 | 2 |\n\n- [x] done', back: '$$\\frac{1}{2}$$\n\n- → so\n- ! careful' },
      { front: 'Two', back: 'Deux' },
    ]);
    const { page } = await pageAs(owner);
    await page.goto(`${suite.server.url}/decks/${deckId}`);
    assert.deepEqual(await axeViolations(page), [], 'learning view, front');
    await page.getByRole('button', { name: 'Show answer' }).click();
    assert.deepEqual(await axeViolations(page), [], 'learning view, answer');
    await page.goto(`${suite.server.url}/decks/${deckId}?browse=1&card=1`);
    assert.deepEqual(await axeViolations(page), [], 'learning view, browsing');
    await page.goto(`${suite.server.url}/decks/${deckId}/edit?card=${cardIds[0]}`);
    assert.deepEqual(await axeViolations(page), [], 'editor');
    await screenshot(page, 'editor', 'learning');
  });
});
