// The API's interactive docs ({base_url}/docs) are an HTML page on the site's origin, so they carry
// the pages' headers (DECISIONS "Web pages"): a Content-Security-Policy without inline script,
// frame-ancestors 'none', nosniff; on the page and on every file it loads. In Chromium the page
// still renders and calls the API, with no CSP violation, and refuses to be framed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium, screenshot } from '../../helpers/browser.ts';
import { buildForSuite } from '../../helpers/server.ts';

function directives(csp: string): Map<string, string[]> {
  return new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0] !== '').map(([name, ...values]) => [name ?? '', values]));
}

/** The page's headers hold for `res`: a CSP with no inline script that no one may frame, nosniff. */
function assertPageHeaders(res: Response, what: string): void {
  const csp = directives(res.headers.get('content-security-policy') ?? '');
  assert.deepEqual(csp.get('frame-ancestors'), ["'none'"], what);
  const scripts = csp.get('script-src') ?? csp.get('default-src') ?? [];
  assert.ok(scripts.length > 0, `${what}: no script-src`);
  for (const source of scripts) assert.ok(!/unsafe-inline|unsafe-eval|^\*$|^https?:$|^data:$/.test(source), `${what}: script-src ${source}`);
  assert.deepEqual(csp.get('object-src'), ["'none'"], what);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(res.headers.get('x-frame-options'), 'DENY', what);
}

describe('the interactive docs page', () => {
  // PUBLIC_URL is where Try it out sends its calls: this server, as the browser reaches it.
  const suite = buildForSuite({ publicUrl: true });

  test('should send the pages\' CSP, frame-ancestors \'none\' and nosniff with the page and every file it loads', async () => {
    for (const page of [`${suite.server.base}/docs`, `${suite.server.base}/docs/`]) {
      const res = await fetch(page);
      assert.equal(res.status, 200);
      assertPageHeaders(res, page);
      const html = await res.text();
      for (const [tag] of html.matchAll(/<script[^>]*>/gi)) assert.match(tag, /\ssrc="/, `inline script: ${tag}`);
      const assets = [...html.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => new URL(m[1] ?? '', page).href);
      assert.ok(assets.some((a) => a.endsWith('/swagger-ui-bundle.js')), page);
      for (const asset of [...assets, new URL('./json', `${suite.server.base}/docs/`).href]) {
        const file = await fetch(asset);
        assert.equal(file.status, 200, asset);
        assertPageHeaders(file, asset);
        // Read to the end: a large body left unread (swagger-ui-bundle.js) keeps its connection
        // busy, and the server's close waits for it until the keep-alive timeout (72 s).
        await file.arrayBuffer();
      }
    }
  });

  describe('in Chromium', { skip: browserSkipReason() }, () => {
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    before(async () => {
      browser = await launchChromium();
      page = await browser.newPage();
      page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
      page.on('pageerror', (error) => { problems.push(error.message); });
      // Injected through DevTools, which the page's CSP does not govern.
      await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => {
        (window.__violations ??= []).push(e.violatedDirective + ' ' + e.blockedURI);
      });`);
    });
    after(async () => { await browser?.close(); });

    test('should render the operations and call the API from Try it out, with no CSP violation', async () => {
      await page.goto(`${suite.server.base}/docs`);
      const whoami = page.locator('.opblock-summary').filter({ hasText: '/whoami' }).first();
      await whoami.waitFor();
      await whoami.click();
      await page.getByRole('button', { name: 'Try it out' }).first().click();
      await page.getByRole('button', { name: 'Execute' }).first().click();
      // No token was given: the API's own 401 comes back into the page.
      await page.locator('.live-responses-table .response-col_status').filter({ hasText: '401' }).first().waitFor();
      await screenshot(page, 'api-docs');
      assert.deepEqual(await page.evaluate('window.__violations ?? []'), []);
      // The 401 itself is logged by Chromium as a failed resource load; nothing else may be.
      assert.deepEqual(problems.filter((p) => !/status of 401/.test(p)), []);
    });

    test('should refuse to be shown in a frame', async () => {
      const framing = await browser.newPage();
      const refused: string[] = [];
      framing.on('console', (message) => { refused.push(message.text()); });
      await framing.setContent(`<iframe src="${suite.server.base}/docs" width="800" height="600"></iframe>`);
      // Until Chromium says it refused (at most 10 s), rather than a fixed wait.
      const refusal = /frame-ancestors|X-Frame-Options|Refused to (?:display|frame)/i;
      for (const deadline = Date.now() + 10_000; !refused.some((line) => refusal.test(line)) && Date.now() < deadline;) {
        await framing.waitForTimeout(50);
      }
      const frame = framing.frames().find((f) => f !== framing.mainFrame());
      const rendered = frame === undefined ? 0 : await frame.locator('#swagger-ui').count().catch(() => 0);
      assert.equal(rendered, 0, 'the docs rendered inside a frame');
      assert.ok(refused.some((line) => refusal.test(line)), refused.join('\n'));
      await framing.close();
    });
  });
});
