// Headless Chromium for the pages' browser tests: Debian's /usr/bin/chromium driven by
// playwright-core (never `npx playwright install`). Absent on a developer's machine, the tests skip
// with the reason; in CI (.ci/run sets CI=1, and installs chromium) absence is a failure.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from './process.ts';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'];

/** Screenshots and other artefacts of the browser tests (git ignores the folder). */
export const ARTEFACTS = path.join(ROOT, 'test-artifacts', 'browser');

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
 * axe-core's WCAG 2.1 A/AA checks on the page as it is. Evaluated through the DevTools protocol,
 * which the page's CSP does not govern (the page itself still runs no inline script).
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string, evaluated in the page (the tests' TypeScript has no DOM types).
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(ARTEFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTEFACTS, `${name}.png`), fullPage: true });
}
