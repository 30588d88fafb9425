// Headless Chromium for page tests: Debian's /usr/bin/chromium driven by playwright-core (never a
// downloaded browser). Every page gets a hook, installed before any of its scripts run, that
// records dialogs, CSP violations and any call to alert/confirm/prompt/print/eval; tests read it
// with `pageProblems`. Requests to other origins are answered with nothing (no network in tests).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** node:test `skip` reason: only on a developer machine without Chromium; CI installs it. */
export function chromiumSkipReason(): string | false {
  if (fs.existsSync(CHROMIUM_PATH)) return false;
  if (process.env.CI) throw new Error(`Chromium is required in CI but ${CHROMIUM_PATH} is missing`);
  return `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium)`;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS });
}

/** Where screenshots go (git-ignored). */
export const ARTEFACTS = path.resolve(import.meta.dirname, '../../test-artifacts/learning');

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTEFACTS, `${name}.png`), fullPage: true });
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

/** Dialogs a page opened are dismissed and recorded. */
export function watchDialogs(page: Page, seen: string[]): void {
  page.on('dialog', (dialog) => {
    seen.push(`dialog ${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => seen.push(`page error: ${error.message}`));
}

export async function pageProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => ((globalThis as any).__problems as string[] | undefined) ?? ['hook missing']);
}

const AXE_SOURCE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's violations on the page (WCAG 2.x A and AA rules, and best practices). */
export async function axeViolations(page: Page): Promise<{ id: string; impact: string | null; nodes: string[] }[]> {
  // Evaluated by the test (DevTools protocol), not added as a script tag the page's CSP refuses.
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const w = globalThis as any;
    const result: { violations: { id: string; impact: string | null; nodes: { target: string[] }[] }[] } = await w.axe.run(w.document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.map((n) => n.target.join(' ')) }));
  });
}
