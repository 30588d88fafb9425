// npx node bench/learning-view.ts: the learning view's figures (docs/learning-view.md), on a
// 250-card deck (bench/deck-fixture.ts) made public, in one process on SQLite:
// - server time p50 of GET /decks/{id} (light-my-request, so no socket) on a cached version, and
//   right after a card changed through the API (the deck is rendered again, reusing 249 cards);
//   the same for the signed-in owner's review page;
// - page weight before fonts: the HTML and every stylesheet and script it links, as sent
//   (gzip when asked) and uncompressed;
// - first paint and first contentful paint in headless Chromium (median of fresh contexts).
// Medians of many rounds; the machine is shared, so expect noise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { signInCookie } from '../test/helpers/web.ts';
import { benchDeck } from './deck-fixture.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 40);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-learn-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_DAY: '100000000' });
  const app = await buildApp(config, { logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const email = 'bench@bench.example';
    const user = await app.admin.addUser(email);
    const { token } = await app.admin.createToken({ email, name: 'bench', scopes: ['decks:read', 'decks:write'] });
    const auth = { authorization: `Bearer ${token}` };
    const fixture = benchDeck();
    fixture.deck.visibility = 'public';
    const imported = await app.inject({ method: 'POST', url: '/api/v1/decks/import', headers: auth, payload: fixture });
    const { deckId } = imported.json<{ deckId: string }>();
    const deck = (await app.inject({ method: 'GET', url: `/api/v1/decks/${deckId}`, headers: auth })).json<{ cards: { id: string }[] }>();
    const page = `/decks/${deckId}`;

    // Cached version: every card of the deck in turn.
    await app.inject({ method: 'GET', url: page });
    const cached: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const res = await app.inject({ method: 'GET', url: `${page}?card=${(i % 250) + 1}` });
      cached.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`GET ${page}: ${res.statusCode}`);
    }
    // After a change: a card edited through the API, then the first view of the new version.
    const changed: number[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const card = deck.cards[(i * 37) % 250];
      await app.inject({ method: 'PATCH', url: `/api/v1/decks/${deckId}/cards/${card.id}`, headers: auth, payload: { back: `Edited ${i}: ${'x'.repeat(i)}` } });
      const t = performance.now();
      await app.inject({ method: 'GET', url: `${page}?card=${(i % 250) + 1}` });
      changed.push(performance.now() - t);
    }
    // The owner's review page (resumes the active session: a transaction on every view).
    const cookie = await signInCookie(app, user.id);
    const owner: number[] = [];
    for (let i = 0; i < ROUNDS / 2; i++) {
      const t = performance.now();
      const res = await app.inject({ method: 'GET', url: page, headers: { cookie } });
      owner.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`owner GET ${page}: ${res.statusCode}`);
    }

    // Page weight before fonts: the document and what it links (stylesheets, scripts).
    const weigh = async (encoding: string) => {
      const html = await fetch(`${url}${page}`, { headers: { 'accept-encoding': encoding } });
      const text = await html.text();
      const sizes: Record<string, number> = { [page]: Number(html.headers.get('content-length') ?? Buffer.byteLength(text)) };
      for (const [, href] of text.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)) {
        const res = await fetch(`${url}${href}`, { headers: { 'accept-encoding': encoding } });
        const body = Buffer.from(await res.arrayBuffer());
        sizes[href] = encoding === 'identity' ? body.length : Number(res.headers.get('content-length') ?? body.length);
      }
      return sizes;
    };
    const [plain, gzip] = [await weigh('identity'), await weighCompressed(url, page)];

    // First paint in headless Chromium, fresh context (cold cache) each time.
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const paints: number[] = [];
    const contentful: number[] = [];
    const baseline: number[] = [];
    const responses: number[] = [];
    const loaded: number[] = [];
    try {
      for (let i = 0; i < Number(process.env.BENCH_PAINTS ?? 15); i++) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        await tab.goto(`${url}${page}?card=${i + 1}`, { waitUntil: 'load' });
        // Paint entries can land just after the load event.
        await tab.waitForFunction(() => (globalThis as any).performance.getEntriesByType('paint').length >= 2, undefined, { timeout: 5000 }).catch(() => {});
        const entries: [string, number][] = await tab.evaluate(() => (globalThis as any).performance.getEntriesByType('paint').map((e: any) => [e.name, e.startTime]));
        const fp = entries.find(([name]) => name === 'first-paint');
        const fcp = entries.find(([name]) => name === 'first-contentful-paint');
        const nav: { responseEnd: number; dcl: number } = await tab.evaluate(() => {
          const n = (globalThis as any).performance.getEntriesByType('navigation')[0];
          return { responseEnd: n.responseEnd, dcl: n.domContentLoadedEventEnd };
        });
        responses.push(nav.responseEnd);
        loaded.push(nav.dcl);
        if (fp) paints.push(fp[1]);
        if (fcp) contentful.push(fcp[1]);
        // The same cold load of the sign-in page (one stylesheet, no card): what the machine allows.
        const plain = await context.newPage();
        await plain.goto(`${url}/signin?${i}`, { waitUntil: 'load' });
        await plain.waitForFunction(() => (globalThis as any).performance.getEntriesByType('paint').length >= 2, undefined, { timeout: 5000 }).catch(() => {});
        const base: number | undefined = await plain.evaluate(() => (globalThis as any).performance.getEntriesByType('paint').find((e: any) => e.name === 'first-paint')?.startTime);
        if (base !== undefined) baseline.push(base);
        await context.close();
      }
    } finally {
      await browser.close();
    }

    const total = (sizes: Record<string, number>) => Object.values(sizes).reduce((a, b) => a + b, 0);
    console.log(`learning view, 250-card public deck, ${os.cpus().length} cores`);
    console.log(`server time, cached version: p50 ${ms(percentile(cached, 0.5))}, p90 ${ms(percentile(cached, 0.9))} (${ROUNDS} views)`);
    console.log(`server time, after a change: p50 ${ms(percentile(changed, 0.5))}, p90 ${ms(percentile(changed, 0.9))} (${CHANGES} changes)`);
    console.log(`server time, owner's review page: p50 ${ms(percentile(owner, 0.5))}, p90 ${ms(percentile(owner, 0.9))}`);
    console.log(`first paint: p50 ${ms(percentile(paints, 0.5))}; first contentful paint: p50 ${ms(percentile(contentful, 0.5))} (${paints.length} cold loads; HTML received p50 ${ms(percentile(responses, 0.5))}, DOMContentLoaded p50 ${ms(percentile(loaded, 0.5))}; the sign-in page, for comparison: ${ms(percentile(baseline, 0.5))})`);
    console.log(`page weight before fonts: ${(total(gzip) / 1024).toFixed(1)} KiB as sent (gzip), ${(total(plain) / 1024).toFixed(1)} KiB uncompressed`);
    for (const [name, size] of Object.entries(plain)) console.log(`  ${name}: ${(size / 1024).toFixed(1)} KiB, gzip ${((gzip[name] ?? 0) / 1024).toFixed(1)} KiB`);
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Sizes as sent to a browser that accepts gzip (fetch would decode, so read the raw bytes). */
async function weighCompressed(url: string, page: string): Promise<Record<string, number>> {
  const { request } = await import('node:http');
  const get = (p: string) => new Promise<{ bytes: number; body: string }>((resolve, reject) => {
    const req = request(`${url}${p}`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ bytes: Buffer.concat(chunks).length, body: '' }));
    });
    req.once('error', reject);
    req.end();
  });
  const html = await (await fetch(`${url}${page}`)).text();
  const sizes: Record<string, number> = { [page]: (await get(page)).bytes };
  for (const [, href] of html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)) sizes[href] = (await get(href)).bytes;
  return sizes;
}

await main();
