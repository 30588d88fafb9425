// npx node bench/study.ts: the study figures of DECISIONS "Web pages" (docs/performance.md), in
// one process on SQLite:
// - the signed-in home page with 100 decks and their due and new counts: server time p50 of GET /
//   (light-my-request, no socket; the page lists 50 decks, with one grouped count for them);
// - the owner's study view of a 250-card deck (bench/deck-fixture.ts): server time p50, and first
//   paint in headless Chromium (fresh context, cold cache, signed in);
// - rating to the next card shown, with JavaScript, in Chromium: from the click on Good to the
//   next frame after the next card replaced <main> (learn.js: fetch, then swap), measured in the
//   page itself.
// Medians of many rounds; the machine is shared, so expect noise.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { dueCountsOfDecks } from '../src/modules/reviews/review-overview.service.ts';
import { SESSION_COOKIE } from '../src/surfaces/page-security.ts';
import { signInCookie } from '../test/helpers/web.ts';
import { benchDeck } from './deck-fixture.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 200);
const RATINGS = Number(process.env.BENCH_RATINGS ?? 60);
const PAINTS = Number(process.env.BENCH_PAINTS ?? 15);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))] ?? NaN;
const ms = (value: number) => `${value.toFixed(2)} ms`;

// In the page: show the answer, click Good, resolve with the time until the frame after the next card is in.
const RATE_IN_PAGE = `new Promise((resolve) => {
  const before = document.querySelector('main');
  const show = document.querySelector('[data-show-answer] button');
  if (show) show.click();
  const observer = new MutationObserver(() => {
    if (document.querySelector('main') === before) return;
    observer.disconnect();
    requestAnimationFrame(() => resolve(performance.now() - t0));
  });
  observer.observe(document.body, { childList: true });
  const t0 = performance.now();
  document.querySelector('button[name="rating"][value="good"]').click();
})`;

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-bench-study-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_PER_DAY: '100000000', DECK_LIMIT: '1000' });
  const app = await buildApp(config, { logger: false });
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const email = 'bench@bench.example';
    const user = await app.admin.addUser(email);
    const { token } = await app.admin.createToken({ email, name: 'bench', scopes: ['decks:read', 'decks:write', 'reviews:write'] });
    const auth = { authorization: `Bearer ${token}` };
    const cookie = await signInCookie(app, user.id);

    // 100 decks of 20 cards, a few cards of each reviewed, so every count has something to count.
    for (let d = 0; d < 100; d++) {
      const fixture = benchDeck(20, d + 1);
      fixture.deck.title = `Deck ${d}`;
      const res = await app.inject({ method: 'POST', url: '/api/v1/decks/import', headers: auth, payload: fixture });
      if (res.statusCode !== 201) throw new Error(`import: ${res.statusCode} ${res.body}`);
      const { deckId } = res.json<{ deckId: string }>();
      const session = (await app.inject({ method: 'POST', url: '/api/v1/reviews', headers: auth, payload: { deckId } })).json<{ id: string; cards: string[] }>();
      for (const cardId of session.cards.slice(0, 3)) {
        await app.inject({ method: 'POST', url: `/api/v1/reviews/${session.id}/answers`, headers: auth, payload: { cardId, rating: 'good' } });
      }
    }
    await app.inject({ method: 'GET', url: '/', headers: { cookie } });
    const home: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      const res = await app.inject({ method: 'GET', url: '/', headers: { cookie } });
      home.push(performance.now() - t);
      if (res.statusCode !== 200 || !res.body.includes('Study now')) throw new Error(`GET /: ${res.statusCode}`);
    }

    // Of which the counts: the one grouped query for the 50 decks listed.
    const listed = (await app.inject({ method: 'GET', url: '/api/v1/decks?limit=50', headers: auth })).json<{ items: { id: string; cardCount: number }[] }>().items;
    const counting: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const t = performance.now();
      await dueCountsOfDecks(app.services, { userId: user.id }, { decks: listed });
      counting.push(performance.now() - t);
    }

    // The 250-card deck, studied by its owner.
    const big = (await app.inject({ method: 'POST', url: '/api/v1/decks/import', headers: auth, payload: benchDeck() })).json<{ deckId: string }>();
    const page = `/decks/${big.deckId}`;
    await app.inject({ method: 'GET', url: page, headers: { cookie } });
    const study: number[] = [];
    for (let i = 0; i < ROUNDS / 2; i++) {
      const t = performance.now();
      const res = await app.inject({ method: 'GET', url: page, headers: { cookie } });
      study.push(performance.now() - t);
      if (res.statusCode !== 200) throw new Error(`GET ${page}: ${res.statusCode}`);
    }

    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
    const paints: number[] = [];
    const rated: number[] = [];
    const baseline: number[] = [];
    try {
      const sessionCookie = { name: SESSION_COOKIE, value: cookie.slice(SESSION_COOKIE.length + 1), url, httpOnly: true, sameSite: 'Lax' as const };
      for (let i = 0; i < PAINTS; i++) {
        const context = await browser.newContext();
        await context.addCookies([sessionCookie]);
        const tab = await context.newPage();
        await tab.goto(`${url}${page}`, { waitUntil: 'load' });
        await tab.waitForFunction(() => (globalThis as any).performance.getEntriesByType('paint').length >= 1, undefined, { timeout: 5000 }).catch(() => {});
        const fp: number | undefined = await tab.evaluate(() => (globalThis as any).performance.getEntriesByType('paint').find((e: any) => e.name === 'first-paint')?.startTime);
        if (fp !== undefined) paints.push(fp);
        // The same cold load of the sign-in page (one stylesheet, no card): what the machine allows.
        const plain = await context.newPage();
        await plain.goto(`${url}/signin?${i}`, { waitUntil: 'load' });
        await plain.waitForFunction(() => (globalThis as any).performance.getEntriesByType('paint').length >= 1, undefined, { timeout: 5000 }).catch(() => {});
        const base: number | undefined = await plain.evaluate(() => (globalThis as any).performance.getEntriesByType('paint').find((e: any) => e.name === 'first-paint')?.startTime);
        if (base !== undefined) baseline.push(base);
        await context.close();
      }
      const context = await browser.newContext();
      await context.addCookies([sessionCookie]);
      const tab = await context.newPage();
      await tab.goto(`${url}${page}`, { waitUntil: 'load' });
      for (let i = 0; i < RATINGS; i++) rated.push(await tab.evaluate<number>(RATE_IN_PAGE));
      await context.close();
    } finally {
      await browser.close();
    }

    console.log(`study pages, ${os.cpus().length} cores, SQLite`);
    console.log(`home, 100 decks (50 listed) with due and new counts: server p50 ${ms(percentile(home, 0.5))}, p90 ${ms(percentile(home, 0.9))} (${ROUNDS} views)`);
    console.log(`  of which the due and new counts of the 50 decks (one grouped query): p50 ${ms(percentile(counting, 0.5))}`);
    console.log(`study view, 250-card deck, owner: server p50 ${ms(percentile(study, 0.5))}, p90 ${ms(percentile(study, 0.9))}`);
    console.log(`study view, 250-card deck: first paint p50 ${ms(percentile(paints, 0.5))} (${paints.length} cold loads, signed in; the sign-in page, for comparison: ${ms(percentile(baseline, 0.5))})`);
    console.log(`rating to the next card shown (JavaScript, Chromium): p50 ${ms(percentile(rated, 0.5))}, p90 ${ms(percentile(rated, 0.9))} (${rated.length} ratings)`);
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
