// npm run bench:web: the web pages' figures of issue 11 (docs/web.md).
// - Server render: p50/p95 of GET /settings/tokens with 50 tokens and of a token's activity page
//   of 100 entries, signed in, through Fastify's inject (routing, hooks, the session read, the
//   services' queries, Eta and the layout; no socket), sequential, after a warm-up.
// - First paint and first contentful paint of each page in headless Chromium (the paint entries of
//   the performance timeline), on a first visit (a fresh browser context: nothing cached) once
//   Chromium is idle (settle, below), the server being src/server.ts in a process of its own on the
//   same store; every page once per round, BENCH_WEB_VISITS rounds (11), median and quartiles.
// - Page weight: every byte Chromium fetched for the page (HTML, CSS, scripts, icon; no fonts are
//   used by these pages), as sent on the wire (compressed).
// SQLite store in a temporary directory; BENCH_WEB_DATABASE_URL runs it on PostgreSQL instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type CDPSession, type Request } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { insertActivity, type ActivityEntry } from '../src/modules/activity/activity.repository.ts';
import { startSignInSession } from '../src/modules/sessions/sessions.service.ts';
import { createToken } from '../src/modules/tokens/tokens.service.ts';
import { signUp } from '../src/modules/users/users.service.ts';
import { startFlashdeck } from './servers.ts';

const ITERATIONS = Number(process.env.BENCH_WEB_ITERATIONS ?? 300);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Visits per page in Chromium; the median is reported. */
const VISITS = Number(process.env.BENCH_WEB_VISITS ?? 11);
const SETTLE = process.env.BENCH_WEB_SETTLE !== '0';

/**
 * Waits until Chromium is idle: a 100 ms window in which all its processes together used at most
 * 10 ms of CPU (at most 5 s). A new browser context starts a renderer for its blank tab and a spare
 * one (taken by a navigation that must change process, as every page here does: they send
 * Cross-Origin-Opener-Policy), and the context closed just before is still being torn down; on a
 * 2-core machine that work (Chromium's processes used ~800 ms of CPU per visit instead of ~500 under
 * load) would otherwise run during the visit and be counted in the page's first paint. Nothing is cached by waiting: the tab
 * is blank and the context new. BENCH_WEB_SETTLE=0 navigates at once, as the bench did before.
 */
async function settle(cdp: CDPSession): Promise<void> {
  const sample = async () => new Map((await cdp.send('SystemInfo.getProcessInfo')).processInfo.map((p) => [p.id, p.cpuTime] as const));
  const deadline = Date.now() + 5000;
  let last = await sample();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    const now = await sample();
    let used = 0;
    for (const [id, cpu] of now) used += cpu - (last.get(id) ?? 0);
    if (used <= 0.01) return;
    last = now;
  }
}

/** The page's paint entries, once Chromium has reported them (or after 5 s, when it never does). */
const PAINT_ENTRIES = `new Promise((resolve) => {
  const seen = {};
  const done = () => resolve(seen);
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) seen[e.name] = e.startTime;
    if ('first-paint' in seen && 'first-contentful-paint' in seen) done();
  }).observe({ type: 'paint', buffered: true });
  setTimeout(done, 5000);
})`;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-web-'));
const env: Record<string, string> = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
if (process.env.BENCH_WEB_DATABASE_URL) env.DATABASE_URL = process.env.BENCH_WEB_DATABASE_URL;
const app = await buildApp(loadConfig(env), { logger: false });
let appClosed = false;
try {
  const ctx = app.services;
  const user = await signUp(ctx, { email: `bench-${Date.now()}@example.com`, password: 'bench password 123' });
  const actor = { userId: user.id };
  let busy = '';
  for (let i = 0; i < 50; i++) {
    const { summary } = await createToken(ctx, actor, { name: `token ${i}`, scopes: ['decks:read', 'decks:write'], expiresDays: 90 });
    busy = summary.id;
  }
  const base = Date.now() - 86_400_000;
  const entries: ActivityEntry[] = Array.from({ length: 150 }, (_, i) => ({
    tokenId: busy, userId: user.id, at: new Date(base + i * 1000).toISOString(), method: 'GET', route: '/api/v1/decks/:deckId',
    deckId: `dck_${String(i).padStart(20, '0')}`, status: i % 10 === 0 ? 404 : 200, errorCode: i % 10 === 0 ? 'DECK_NOT_FOUND' : null, durationMs: 3, clientIp: '192.0.2.10',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench-agent/1.0', requestId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  }));
  await insertActivity(ctx.db, entries);
  const { id: sessionId } = await startSignInSession(ctx, actor, {});
  const cookie = `flashdeck_session=${sessionId}`;
  const pages = { tokens: '/settings/tokens', activity: `/settings/tokens/${busy}` };

  // CPU per render too: on a machine others share, wall-clock percentiles include waiting for a core.
  const render: Record<string, { p50: number; p95: number; cpuMs: number; bytes: number }> = {};
  const encodings = { identity: 'identity', br: 'br, gzip' };
  for (const [pageName, url] of Object.entries(pages)) for (const [encodingName, encoding] of Object.entries(encodings)) {
    const name = `${pageName} (${encodingName})`;
    const times: number[] = [];
    let bytes = 0;
    let cpuStart = process.cpuUsage();
    for (let i = 0; i < ITERATIONS + 50; i++) {
      const start = process.hrtime.bigint();
      const res = await app.inject({ method: 'GET', url, headers: { cookie, 'accept-encoding': encoding } });
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
      bytes = res.rawPayload.length; // on the wire
      if (i >= 50) times.push(ms);
      if (i === 49) cpuStart = process.cpuUsage();
    }
    const cpu = process.cpuUsage(cpuStart);
    times.sort((x, y) => x - y);
    render[name] = { p50: percentile(times, 0.5), p95: percentile(times, 0.95), cpuMs: (cpu.user + cpu.system) / 1000 / ITERATIONS, bytes };
    if (pageName === 'activity' && !res100(await app.inject({ method: 'GET', url, headers: { cookie } }).then((r) => r.body))) throw new Error('activity page does not hold 100 entries');
  }

  type Visit = { firstPaint: number; firstContentfulPaint: number; weightBytes: number; requests: number };
  const paint: Record<string, Visit & { firstPaintQ1: number; firstPaintQ3: number; missing: number }> = {};
  const visits: Record<string, Visit[]> = {};
  if (process.env.BENCH_WEB_PAINT === '0') {
    process.stderr.write('BENCH_WEB_PAINT=0: no paint figures\n');
  } else if (fs.existsSync(CHROMIUM)) {
    // The pages are served by `src/server.ts` in a process of its own (as `npm start` runs it), on
    // the same store: in this process its event loop would also run Playwright's side of the
    // DevTools protocol, which is busy exactly while a page loads, and would delay the answers
    // (the stylesheet's above all) by work that is not the server's.
    await app.close();
    appClosed = true;
    const server = await startFlashdeck('web', { kind: 'sqlite' }, { dataDir, env: env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {} });
    const url = server.url;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const cdp = await browser.newBrowserCDPSession();
    try {
      const all = { home: '/', signin: '/signin', ...pages, account: '/settings/account' };
      // One visit first, so Chromium's own start-up is not counted against the first page.
      const warm = await browser.newContext();
      await (await warm.newPage()).goto(`${url}/`);
      await warm.close();
      // Pages in turn within each round (not all visits of one page in a row), so a burst of load
      // from elsewhere on the machine spreads over every page rather than landing on one.
      for (let visit = 0; visit < VISITS; visit++) for (const [name, pagePath] of Object.entries(all)) {
        // A fresh context per page: nothing cached, as on a first visit.
        const context = await browser.newContext();
        if (name !== 'home' && name !== 'signin') await context.addCookies([{ name: 'flashdeck_session', value: sessionId, url }]);
        const page = await context.newPage();
        if (SETTLE) await settle(cdp);
        const finished: Request[] = [];
        page.on('requestfinished', (request) => { finished.push(request); });
        await page.goto(`${url}${pagePath}`, { waitUntil: 'load' });
        // Paint entries are queued once the frame is presented, which can be after the load event
        // and after the next animation frames: wait for them (read two frames after load, up to a
        // third of the visits under load had none, and were left out of the median).
        const timing = await page.evaluate<Record<string, number>>(PAINT_ENTRIES);
        // Sizes are asked for after the paint (asking is DevTools traffic during the load otherwise),
        // once the icon, fetched after the load event, has come too.
        await page.waitForLoadState('networkidle');
        let weight = 0;
        for (const request of finished) weight += (await request.sizes()).responseBodySize;
        (visits[name] ??= []).push({ firstPaint: timing['first-paint'] ?? Number.NaN, firstContentfulPaint: timing['first-contentful-paint'] ?? Number.NaN, weightBytes: weight, requests: finished.length });
        await context.close();
      }
      for (const [name, list] of Object.entries(visits)) {
        const sorted = (pick: (v: Visit) => number) => list.map(pick).filter((n) => !Number.isNaN(n)).sort((x, y) => x - y);
        const fp = sorted((v) => v.firstPaint);
        paint[name] = {
          firstPaint: percentile(fp, 0.5), firstPaintQ1: percentile(fp, 0.25), firstPaintQ3: percentile(fp, 0.75), missing: list.length - fp.length,
          firstContentfulPaint: percentile(sorted((v) => v.firstContentfulPaint), 0.5), weightBytes: percentile(sorted((v) => v.weightBytes), 0.5), requests: list[0]?.requests ?? 0,
        };
      }
    } finally {
      await browser.close();
      await server.stop();
    }
  } else {
    process.stderr.write(`Chromium not found at ${CHROMIUM}: no paint figures\n`);
  }

  const fmt = (n: number) => n.toFixed(2);
  process.stdout.write(`\nServer render (inject, ${ITERATIONS} sequential requests, signed in, ${env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}):\n`);
  for (const [name, r] of Object.entries(render)) process.stdout.write(`  ${name.padEnd(20)} p50 ${fmt(r.p50)} ms  p95 ${fmt(r.p95)} ms  CPU ${fmt(r.cpuMs)} ms/render  body ${(r.bytes / 1024).toFixed(1)} KB\n`);
  process.stdout.write(`\nChromium, first visit (no cache), median of ${VISITS} (quartiles), load average ${os.loadavg()[0].toFixed(1)}:\n`);
  for (const [name, p] of Object.entries(paint)) {
    const missing = p.missing > 0 ? ` (${p.missing} visits without a paint entry)` : '';
    process.stdout.write(`  ${name.padEnd(9)} first paint ${fmt(p.firstPaint)} ms (${fmt(p.firstPaintQ1)}-${fmt(p.firstPaintQ3)})  FCP ${fmt(p.firstContentfulPaint)} ms  weight ${(p.weightBytes / 1024).toFixed(1)} KB in ${p.requests} requests${missing}\n`);
  }
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(import.meta.dirname, 'results', 'web-latest.json'), `${JSON.stringify({ at: new Date().toISOString(), iterations: ITERATIONS, loadAverage: os.loadavg(), render, paint, visits }, null, 2)}\n`);
} finally {
  if (!appClosed) await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function res100(html: string): boolean {
  return (html.match(/<td><code>00000000-/g) ?? []).length === 100;
}
