// npx node bench/editor.ts: the editor of a 250-card deck (issue 25's figures, docs/performance.md):
// - server render p50/p95 of GET /decks/{id}/edit (inject, signed in, no socket), and its body;
// - first paint and first contentful paint in headless Chromium on a first visit (a fresh
//   context: nothing cached), the server in a process of its own (src/server.ts's build, as
//   `npm start` runs it) on the same SQLite store; median and quartiles of BENCH_EDITOR_VISITS;
// - page weight: every byte Chromium fetched for the page (HTML, CSS, script, icon, fonts if any),
//   as sent (compressed), and the number of requests;
// - Tab presses from the page's load to the new card's `Front`;
// - the same first paint of /signin (a small page with one stylesheet) in the same rounds, as a
//   baseline: on a shared machine the difference says what the editor itself costs.
// The deck is bench/deck-fixture.ts's (fronts of ~80 characters, backs of ~300 of markdown).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Request } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startSignInSession } from '../src/modules/sessions/sessions.service.ts';
import { benchDeck } from './deck-fixture.ts';
import { startFlashdeck } from './servers.ts';

const ITERATIONS = Number(process.env.BENCH_EDITOR_ITERATIONS ?? 100);
const VISITS = Number(process.env.BENCH_EDITOR_VISITS ?? 9);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const PAINT_ENTRIES = `new Promise((resolve) => {
  const seen = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) seen[e.name] = e.startTime;
    if ('first-paint' in seen && 'first-contentful-paint' in seen) resolve(seen);
  }).observe({ type: 'paint', buffered: true });
  setTimeout(() => resolve(seen), 5000);
})`;

const at = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
const fmt = (n: number) => n.toFixed(1);

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-editor-'));
const env = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_DAY: '100000000' };
const app = await buildApp(loadConfig(env), { logger: false });
let appOpen = true;
try {
  const email = 'editor-bench@bench.example';
  const user = await app.admin.addUser(email);
  const { token } = await app.admin.createToken({ email, name: 'bench', scopes: ['decks:read', 'decks:write'] });
  const imported = await app.inject({ method: 'POST', url: '/api/v1/decks/import', headers: { authorization: `Bearer ${token}` }, payload: benchDeck() });
  const { deckId } = imported.json<{ deckId: string }>();
  const { id: sessionId } = await startSignInSession(app.services, { userId: user.id }, {});
  const editorPath = `/decks/${deckId}/edit`;

  const times: number[] = [];
  let body = 0;
  let wire = 0;
  for (let i = 0; i < ITERATIONS + 20; i++) {
    const start = process.hrtime.bigint();
    const res = await app.inject({ method: 'GET', url: editorPath, headers: { cookie: `flashdeck_session=${sessionId}`, 'accept-encoding': 'br, gzip' } });
    if (res.statusCode !== 200) throw new Error(`${editorPath}: ${res.statusCode}`);
    if (i >= 20) times.push(Number(process.hrtime.bigint() - start) / 1e6);
    wire = res.rawPayload.length;
  }
  body = (await app.inject({ method: 'GET', url: editorPath, headers: { cookie: `flashdeck_session=${sessionId}` } })).rawPayload.length;
  times.sort((a, b) => a - b);
  await app.close();
  appOpen = false;

  const server = await startFlashdeck('editor', { kind: 'sqlite' }, { dataDir });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const visits: { fp: number; fcp: number; weight: number; requests: number }[] = [];
  const baseline: number[] = [];
  let tabs = 0;
  try {
    const warm = await browser.newContext();
    await (await warm.newPage()).goto(`${server.url}/signin`);
    await warm.close();
    for (let visit = 0; visit < VISITS; visit++) {
      const plain = await browser.newContext();
      const signin = await plain.newPage();
      await signin.goto(`${server.url}/signin`, { waitUntil: 'load' });
      baseline.push((await signin.evaluate<Record<string, number>>(PAINT_ENTRIES))['first-paint'] ?? Number.NaN);
      await plain.close();
      const context = await browser.newContext();
      await context.addCookies([{ name: 'flashdeck_session', value: sessionId, url: server.url }]);
      const page = await context.newPage();
      await page.setViewportSize({ width: 1280, height: 900 });
      const finished: Request[] = [];
      page.on('requestfinished', (request) => { finished.push(request); });
      await page.goto(`${server.url}${editorPath}`, { waitUntil: 'load' });
      const paint = await page.evaluate<Record<string, number>>(PAINT_ENTRIES);
      await page.waitForLoadState('networkidle');
      let weight = 0;
      for (const request of finished) weight += (await request.sizes()).responseBodySize;
      visits.push({ fp: paint['first-paint'] ?? Number.NaN, fcp: paint['first-contentful-paint'] ?? Number.NaN, weight, requests: finished.length });
      if (visit === 0) {
        while (tabs < 50) {
          await page.keyboard.press('Tab');
          tabs++;
          if (await page.evaluate('document.activeElement && document.activeElement.id') === 'card-front') break;
        }
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await server.stop();
  }
  const sorted = (pick: (v: (typeof visits)[number]) => number) => visits.map(pick).filter((n) => !Number.isNaN(n)).sort((a, b) => a - b);
  const fp = sorted((v) => v.fp);
  process.stdout.write(`Editor of a 250-card deck (${editorPath}), load average ${os.loadavg()[0].toFixed(1)}:\n`);
  process.stdout.write(`  server render (inject, ${ITERATIONS} sequential): p50 ${fmt(at(times, 0.5))} ms  p95 ${fmt(at(times, 0.95))} ms  HTML ${(body / 1024).toFixed(1)} KB (${(wire / 1024).toFixed(1)} KB compressed)\n`);
  process.stdout.write(`  Chromium first visit, median of ${VISITS}: first paint ${fmt(at(fp, 0.5))} ms (${fmt(at(fp, 0.25))}-${fmt(at(fp, 0.75))})  FCP ${fmt(at(sorted((v) => v.fcp), 0.5))} ms\n`);
  const base = baseline.filter((n) => !Number.isNaN(n)).sort((a, b) => a - b);
  process.stdout.write(`  baseline /signin in the same rounds: first paint ${fmt(at(base, 0.5))} ms (${fmt(at(base, 0.25))}-${fmt(at(base, 0.75))})\n`);
  process.stdout.write(`  page weight ${(at(sorted((v) => v.weight), 0.5) / 1024).toFixed(1)} KB in ${visits[0]?.requests ?? 0} requests; Front after ${tabs} Tab presses\n`);
} finally {
  if (appOpen) await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
