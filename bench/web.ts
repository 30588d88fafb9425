// npm run bench:web: the web pages' figures of issue 11 (docs/web.md).
// - Server render: p50/p95 of GET /settings/tokens with 50 tokens and of a token's activity page
//   of 100 entries, signed in, through Fastify's inject (routing, hooks, the session read, the
//   services' queries, Eta and the layout; no socket), sequential, after a warm-up.
// - First paint and first contentful paint of each page in headless Chromium (performance API).
// - Page weight: every byte Chromium fetched for the page (HTML, CSS, scripts, icon; no fonts are
//   used by these pages), uncompressed as served.
// SQLite store in a temporary directory; BENCH_WEB_DATABASE_URL runs it on PostgreSQL instead.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { insertActivity, type ActivityEntry } from '../src/modules/activity/activity.repository.ts';
import { startSession } from '../src/modules/sessions/sessions.service.ts';
import { createToken } from '../src/modules/tokens/tokens.service.ts';
import { signUp } from '../src/modules/users/users.service.ts';

const ITERATIONS = Number(process.env.BENCH_WEB_ITERATIONS ?? 300);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Visits per page in Chromium; the median is reported. */
const VISITS = Number(process.env.BENCH_WEB_VISITS ?? 5);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-web-'));
const env: Record<string, string> = { PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
if (process.env.BENCH_WEB_DATABASE_URL) env.DATABASE_URL = process.env.BENCH_WEB_DATABASE_URL;
const app = await buildApp(loadConfig(env), { logger: false });
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
    deckId: `dck_${String(i).padStart(20, '0')}`, status: i % 10 === 0 ? 404 : 200, durationMs: 3, clientIp: '192.0.2.10',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) bench-agent/1.0', requestId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
  }));
  await insertActivity(ctx.db, entries);
  const { id: sessionId } = await startSession(ctx, actor, {});
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
  const paint: Record<string, Visit> = {};
  const visits: Record<string, Visit[]> = {};
  if (process.env.BENCH_WEB_PAINT === '0') {
    process.stderr.write('BENCH_WEB_PAINT=0: no paint figures\n');
  } else if (fs.existsSync(CHROMIUM)) {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    try {
      const all = { home: '/', signin: '/signin', ...pages, account: '/settings/account' };
      // One visit first, so Chromium's own start-up is not counted against the first page.
      const warm = await browser.newContext();
      await (await warm.newPage()).goto(`${url}/`);
      await warm.close();
      for (const [name, pagePath] of Object.entries(all)) for (let visit = 0; visit < VISITS; visit++) {
        // A fresh context per page: nothing cached, as on a first visit.
        const context = await browser.newContext();
        if (name !== 'home' && name !== 'signin') await context.addCookies([{ name: 'flashdeck_session', value: sessionId, url }]);
        const page = await context.newPage();
        let weight = 0;
        let requests = 0;
        page.on('requestfinished', (request) => {
          requests++;
          // Bytes on the wire for the body (compressed as served), as a page weight is counted.
          void request.sizes().then((sizes) => { weight += sizes.responseBodySize; }, () => {});
        });
        await page.goto(`${url}${pagePath}`, { waitUntil: 'load' });
        // Paint entries are queued after the frame is shown: wait for two frames before reading.
        await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
        const timing = await page.evaluate<Record<string, number>>(`Object.fromEntries(performance.getEntriesByType('paint').map((e) => [e.name, e.startTime]))`);
        await page.waitForTimeout(50);
        (visits[name] ??= []).push({ firstPaint: timing['first-paint'] ?? Number.NaN, firstContentfulPaint: timing['first-contentful-paint'] ?? Number.NaN, weightBytes: weight, requests });
        await context.close();
      }
      for (const [name, list] of Object.entries(visits)) {
        // A visit whose paint entry Chromium did not report is left out of that figure.
        const median = (pick: (v: Visit) => number) => percentile(list.map(pick).filter((n) => !Number.isNaN(n)).sort((x, y) => x - y), 0.5);
        paint[name] = { firstPaint: median((v) => v.firstPaint), firstContentfulPaint: median((v) => v.firstContentfulPaint), weightBytes: median((v) => v.weightBytes), requests: list[0]?.requests ?? 0 };
      }
    } finally {
      await browser.close();
    }
  } else {
    process.stderr.write(`Chromium not found at ${CHROMIUM}: no paint figures\n`);
  }

  const fmt = (n: number) => n.toFixed(2);
  process.stdout.write(`\nServer render (inject, ${ITERATIONS} sequential requests, signed in, ${env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}):\n`);
  for (const [name, r] of Object.entries(render)) process.stdout.write(`  ${name.padEnd(20)} p50 ${fmt(r.p50)} ms  p95 ${fmt(r.p95)} ms  CPU ${fmt(r.cpuMs)} ms/render  body ${(r.bytes / 1024).toFixed(1)} KB\n`);
  process.stdout.write(`\nChromium, first visit (no cache), median of ${VISITS}:\n`);
  for (const [name, p] of Object.entries(paint)) {
    process.stdout.write(`  ${name.padEnd(9)} first paint ${fmt(p.firstPaint)} ms  FCP ${fmt(p.firstContentfulPaint)} ms  weight ${(p.weightBytes / 1024).toFixed(1)} KB in ${p.requests} requests\n`);
  }
  fs.mkdirSync(path.join(import.meta.dirname, 'results'), { recursive: true });
  fs.writeFileSync(path.join(import.meta.dirname, 'results', 'web-latest.json'), `${JSON.stringify({ at: new Date().toISOString(), iterations: ITERATIONS, render, paint }, null, 2)}\n`);
} finally {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

function res100(html: string): boolean {
  return (html.match(/<td><code>00000000-/g) ?? []).length === 100;
}
