// The XSS corpus (test/fixtures/xss-corpus.ts) imported through the API in every content type,
// then opened in headless Chromium: in the learning view (front, back with the answer label,
// info, images) and in the editor's live preview (the HTML the preview script puts in the page).
// A hook installed before any page script proves that no script ran (no alert/confirm/prompt/
// print call, no dialog, no page error), that the CSP reported no violation, and the DOM of each
// card holds no element or attribute outside what the renderer writes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CONTENT_TYPES, IMAGE_URL_PATTERN } from '../../../src/modules/decks/decks.schemas.ts';
import { XSS_CORPUS } from '../../fixtures/xss-corpus.ts';
import { browserSkipReason, hookedContext, launchChromium, pageProblems, screenshot, watchDialogs } from '../../helpers/browser.ts';
import { signInBrowser } from '../../helpers/web.ts';
import { ALLOWED_ELEMENTS } from '../../helpers/rendered-html.ts';
import { type TestUser, buildForSuite } from '../../helpers/server.ts';

const imageUrl = new RegExp(IMAGE_URL_PATTERN);

/** Half the corpus: card k shows payload k on its front and payload k + HALF on its back. */
const HALF = Math.ceil(XSS_CORPUS.length / 2);
const payloadAt = (k: number) => XSS_CORPUS[k % XSS_CORPUS.length];

function card(k: number, type: string) {
  const payload = payloadAt(k).payload;
  return {
    front: payload,
    back: payloadAt(k + HALF).payload,
    frontMedia: { imageUrl: imageUrl.test(payload) && payload.length <= 2048 ? payload : '/img/ok.png', imageAlt: payload.slice(0, 500) },
    backMedia: { imageUrl: 'https://img.example/b.png', imageAlt: payload.slice(0, 500) },
    extras: { frontType: type, backType: type, info: payload.slice(0, 1000), subject: payload.slice(0, 60), topic: payload.slice(0, 80) },
  };
}

/** In the page: every element under `selector` is one the renderer writes, with no handler or script URL. */
async function domProblems(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(([sel, allowed]) => {
    const problems: string[] = [];
    const roots: any[] = [...(globalThis as any).document.querySelectorAll(sel)];
    if (roots.length === 0) problems.push(`nothing matches ${sel}`);
    for (const root of roots) {
      for (const el of root.querySelectorAll('*') as any[]) {
        const name: string = el.localName;
        if (!allowed.includes(name)) problems.push(`<${name}>`);
        if (['script', 'iframe', 'object', 'embed', 'style', 'form', 'base', 'meta', 'link'].includes(name)) problems.push(`<${name}> present`);
        for (const attr of el.attributes as { name: string; value: string }[]) {
          if (attr.name.startsWith('on')) problems.push(`<${name} ${attr.name}>`);
          if (/^(?:href|src|xlink:href|action|formaction|srcdoc|data)$/.test(attr.name) && /^\s*(?:javascript|data|vbscript):/i.test(attr.value.replace(/[\u0000-\u0020]/g, ''))) {
            problems.push(`<${name} ${attr.name}=${attr.value}>`);
          }
        }
      }
    }
    return problems;
  }, [selector, [...ALLOWED_ELEMENTS]] as const);
}

describe('the XSS corpus in headless Chromium', { skip: browserSkipReason() }, () => {
  let owner: TestUser;
  let browser: Browser;
  const decks: { type: string; deckId: string; cardIds: string[] }[] = [];
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await browser?.close();
  });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    owner = await suite.server.user();
    for (const type of CONTENT_TYPES) {
      const res = await suite.server.api('POST', '/decks/import', {
        token: owner.token,
        json: { deck: { title: `XSS in ${type}`, lang: 'en', visibility: 'public' }, cards: Array.from({ length: HALF }, (_, k) => card(k, type)) },
      });
      assert.equal(res.status, 201, res.text);
      const deck = await suite.server.api('GET', `/decks/${res.body.deckId}`, { token: owner.token });
      decks.push({ type, deckId: res.body.deckId, cardIds: deck.body.cards.map((c: any) => c.id) });
    }
    browser = await launchChromium();
  });

  test(`should run no script, open no dialog, violate no CSP and keep the DOM to the renderer's elements for the ${XSS_CORPUS.length} payloads of the corpus in every content type in the learning view`, async () => {
    assert.ok(XSS_CORPUS.length >= 40);
    const context = await hookedContext(browser, suite.server.url);
    const seen: string[] = [];
    try {
      // One page per content type, side by side: the page loads are the time this test takes.
      await Promise.all(decks.map(async ({ type, deckId }) => {
        const page = await context.newPage();
        watchDialogs(page, seen);
        for (let k = 0; k < HALF; k++) {
          // A signed-out visitor of the public deck, the answer shown: front, back, info, images.
          await page.goto(`${suite.server.url}/decks/${deckId}?card=${k + 1}&answer=1`, { waitUntil: 'load' });
          const label = `${type} / ${payloadAt(k).name} / ${payloadAt(k + HALF).name}`;
          assert.deepEqual(await pageProblems(page), [], label);
          assert.deepEqual(await domProblems(page, '[data-learn-card] :is(.card-side, .card-content, .card-chrome)'), [], label);
          assert.equal(await page.locator('.answer-label').count(), 1, `${label}: one answer label`);
        }
        if (type === decks.at(-1)?.type) await screenshot(page, 'xss-learning-view', 'learning');
      }));
      assert.deepEqual(seen, []);
    } finally {
      await context.close();
    }
  });

  test('should run no script and keep the DOM to the renderer\'s elements when the editor previews every payload in every content type', async () => {
    const seen: string[] = [];
    const { deckId, cardIds } = decks[0];
    // One editor per content type, side by side, each in its own context on a clock the test
    // moves (a context has one clock): the preview's 250 ms pause after typing passes at once.
    await Promise.all(CONTENT_TYPES.map(async (type) => {
      const context = await hookedContext(browser, suite.server.url);
      try {
        await signInBrowser(context, suite.server, owner);
        await context.clock.install();
        const page = await context.newPage();
        watchDialogs(page, seen);
        await page.goto(`${suite.server.url}/decks/${deckId}/edit?card=${cardIds[0]}`, { waitUntil: 'load' });
        assert.deepEqual(await domProblems(page, '[data-preview]'), [], 'server-rendered preview');
        const front = page.getByLabel('Front', { exact: true });
        await page.getByRole('group', { name: 'Front side' }).getByLabel('Content type').selectOption(type);
        await page.getByRole('group', { name: 'Back side' }).getByLabel('Content type').selectOption(type);
        for (let k = 0; k < HALF; k++) {
          const label = `${type} / ${payloadAt(k).name} / ${payloadAt(k + HALF).name}`;
          const marker = `m${Math.random().toString(36).slice(2)}`;
          // The subject (shown as text in the chrome) carries a marker, so the test knows when
          // this preview has arrived.
          await page.getByLabel('Subject').fill(marker);
          await page.getByLabel('Back', { exact: true }).fill(payloadAt(k + HALF).payload);
          await front.fill(payloadAt(k).payload);
          await context.clock.runFor(250);
          await page.locator('[data-preview]', { hasText: marker }).waitFor();
          assert.deepEqual(await pageProblems(page), [], label);
          assert.deepEqual(await domProblems(page, '[data-preview]'), [], label);
        }
        if (type === CONTENT_TYPES.at(-1)) await screenshot(page, 'xss-editor-preview', 'learning');
      } finally {
        await context.close();
      }
    }));
    assert.deepEqual(seen, []);
  });
});
