// Headless Chromium for the pages' browser tests: Debian's /usr/bin/chromium driven by
// playwright-core (never `npx playwright install`). Absent on a developer's machine, the tests skip
// with the reason; in CI (.ci/run sets CI=1, and installs chromium) absence is a failure. One
// browser per test file (launched in its `before`), a new context per test or per page.
// `hookedContext` gives pages a hook, installed before any of their scripts run, that records
// dialogs, CSP violations and any call to alert/confirm/prompt/print; tests read it with
// `pageProblems`. Its requests to other origins are answered with nothing (no network in tests).
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT } from './process.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Screenshots and other artefacts of the browser tests, in one folder per area (git ignores them). */
export const ARTEFACTS = path.join(ROOT, 'test-artifacts');

/** node:test `skip` value: the reason when Chromium is missing here, false when the tests run. */
export function browserSkipReason(): string | false {
  if (fs.existsSync(CHROMIUM)) return false;
  if (process.env.CI) throw new Error(`${CHROMIUM} is missing, and browser tests never skip in CI (.ci/run installs chromium)`);
  return `Chromium not found at ${CHROMIUM}: browser tests skipped (apt-get install chromium, or set CHROMIUM_PATH)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}

const AXE_SOURCE = fs.readFileSync(path.join(ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's WCAG 2.1 A/AA checks (and best practices) on the page as it is. Evaluated through
 * the DevTools protocol, which the page's CSP does not govern (the page itself runs no inline script).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, evaluated in the page (the tests' TypeScript has no DOM types).
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
}

/** A full-page screenshot in test-artifacts/<area>/<name>.png (area: `browser` unless given). */
export async function screenshot(page: Page, name: string, area = 'browser'): Promise<void> {
  const folder = path.join(ARTEFACTS, area);
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`), fullPage: true });
}

/** A fresh context whose pages carry the hook, limited to `origin`. */
export async function hookedContext(browser: Browser, origin: string): Promise<BrowserContext> {
  const context = await browser.newContext();
  // Runs in the page (no DOM types in this Node project: the page's globals are reached untyped).
  await context.addInitScript(() => {
    const w = globalThis as any;
    w.__problems = [];
    for (const name of ['alert', 'confirm', 'prompt', 'print']) {
      const original = w[name].bind(w);
      w[name] = (...args: unknown[]) => {
        w.__problems.push(`${name}(${args.map(String).join(',')})`);
        return original(...args);
      };
    }
    w.document.addEventListener('securitypolicyviolation', (event: any) => {
      w.__problems.push(`CSP violation: ${event.violatedDirective} ${event.blockedURI} ${event.sample}`);
    });
  });
  await context.route('**/*', (route) => (route.request().url().startsWith(origin) ? route.continue() : route.fulfill({ status: 204, body: '' })));
  return context;
}

/** Dialogs a page opened are dismissed and recorded, as are its uncaught errors. */
export function watchDialogs(page: Page, seen: string[]): void {
  page.on('dialog', (dialog) => {
    seen.push(`dialog ${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
}

/** What the hook of `hookedContext` recorded on the page. */
export async function pageProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => ((globalThis as any).__problems as string[] | undefined) ?? ['hook missing']);
}
