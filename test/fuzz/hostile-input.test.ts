// Hostile input over HTTP: the largest bodies the limits allow, made of the characters that make
// naive parsing slow, never stall the server. /healthz is polled while each request runs and must
// keep answering; a stall is the event loop held for seconds of CPU time in one stretch
// (test/helpers/stall.ts: a bound that only catches stalls, not a performance figure, and one a
// busy machine cannot trip).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { HOSTILE_UNITS } from '../helpers/growth.ts';
import { type ApiResponse, buildForSuite } from '../helpers/server.ts';
import { watchEventLoop } from '../helpers/stall.ts';

const STALL_MS = 2000;
const SIDE = 4000;

const runOf = (unit: string, length: number) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length);

/** 250 cards whose text sides are 4000-character runs of the hostile units. */
function hostileCards(count = 250): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => ({
    front: runOf(HOSTILE_UNITS[i % HOSTILE_UNITS.length], SIDE),
    back: `b${runOf(HOSTILE_UNITS[(i * 7 + 3) % HOSTILE_UNITS.length], SIDE - 1)}`,
    extras: { frontType: 'text', backType: 'text', cardType: i % 5 === 0 ? 'formula' : 'basic' },
  }));
}

describe('hostile input over HTTP', () => {
  const suite = buildForSuite({ socket: true });

  /** Sends `request` while /healthz is polled; the longest CPU stretch that held the loop comes back with it. */
  async function whilePolled(request: () => Promise<ApiResponse>): Promise<{ res: ApiResponse; blockedCpuMs: number; polls: number }> {
    let done = false;
    let polls = 0;
    const watch = watchEventLoop();
    const poller = (async () => {
      // At least one poll, sent before the request: a refusal can come back before any poll's
      // answer, and the poll still has to be answered.
      do {
        const health = await fetch(`${suite.server.url}/healthz`);
        await health.arrayBuffer();
        assert.equal(health.status, 200);
        polls++;
        await new Promise((resolve) => setTimeout(resolve, 10));
      } while (!done);
    })();
    try {
      const res = await request();
      const blockedCpuMs = watch.stop().longestBlockCpuMs;
      done = true;
      await poller;
      return { res, blockedCpuMs, polls };
    } finally {
      done = true;
      watch.stop();
      await poller;
    }
  }

  function assertNoStall(label: string, run: { blockedCpuMs: number; polls: number }): void {
    assert.ok(run.polls > 0, `${label}: /healthz was never polled`);
    assert.ok(run.blockedCpuMs < STALL_MS, `${label}: the server held its event loop for ${Math.round(run.blockedCpuMs)} ms of CPU while the request ran`);
  }

  // The reported case: 250 text sides of 4000 "|" took 18.7 s, 4000 spaces 8.5 s.
  test('should import 250 cards of one repeated character without stalling /healthz', async () => {
    for (const unit of ['|', ' ', '\n', '[', ' |']) {
      const cards = Array.from({ length: 250 }, () => ({ front: runOf(unit, SIDE), back: `b${runOf(unit, SIDE - 1)}`, extras: { frontType: 'text', backType: 'text' } }));
      const run = await whilePolled(() => suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Runs' }, cards } }));
      assert.equal(run.res.status, 201, run.res.text.slice(0, 300));
      assertNoStall(`import of ${JSON.stringify(unit)} runs`, run);
    }
  });

  // The search index strips tags from HTML sides: a pattern that scanned up to 2000 characters
  // from every `<` spent about 12 s of one import on 250 cards of 4000 `<`.
  test('should import and index 250 HTML cards of one repeated tag character without stalling /healthz', async () => {
    for (const unit of ['<', '<a', '< ']) {
      const cards = Array.from({ length: 250 }, () => ({ front: runOf(unit, SIDE), back: runOf(unit, SIDE), extras: { frontType: 'html', backType: 'html' } }));
      const run = await whilePolled(() => suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Tags' }, cards } }));
      assert.equal(run.res.status, 201, run.res.text.slice(0, 300));
      assertNoStall(`import of HTML ${JSON.stringify(unit)} runs`, run);
    }
  });

  // A URL pattern used to backtrack quadratically (200,000 characters took 115 s to refuse), and a
  // pattern with a repeated group overflowed V8's backtracking stack on 15 MB (a 500).
  test('should refuse strings of megabytes in patterned fields without stalling /healthz', async () => {
    const long = (unit: string) => unit.repeat(Math.floor(15_000_000 / unit.length));
    const cases: [string, Record<string, unknown>][] = [
      ['cards[0].frontMedia.imageUrl', { deck: { title: 'T' }, cards: [{ front: 'q', frontMedia: { imageUrl: `https://${long('a')} ` } }] }],
      ['cards[0].backMedia.imageUrl', { deck: { title: 'T' }, cards: [{ front: 'q', backMedia: { imageUrl: `/${long('a')}\u0000` } }] }],
      ['deck.thumbnail', { deck: { title: 'T', thumbnail: `https://${long('@')} ` }, cards: [{ front: 'q' }] }],
      ['deck.lang', { deck: { title: 'T', lang: `en${long('-a')}!` }, cards: [{ front: 'q' }] }],
      ['deck.title', { deck: { title: long(' ') }, cards: [{ front: 'q' }] }],
    ];
    for (const [field, json] of cases) {
      const run = await whilePolled(() => suite.server.api('POST', '/decks/import', { token: suite.user.token, json }));
      assert.equal(run.res.status, 400, run.res.text.slice(0, 300));
      assert.ok(run.res.body.error.details.errors.some((e: { field: string }) => e.field === field), `${field}: ${run.res.text.slice(0, 300)}`);
      assertNoStall(field, run);
    }
  });

  test('should import, export, re-import and append 250 cards of 4000-character runs without stalling /healthz', async () => {
    const cards = hostileCards();
    const json = await whilePolled(() => suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Hostile', lang: 'en' }, cards } }));
    assert.equal(json.res.status, 201, json.res.text.slice(0, 300));
    assert.equal(json.res.body.cardCount, 250);
    assertNoStall('JSON import', json);
    const deckId = json.res.body.deckId as string;

    const exported = await whilePolled(() => suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token, headers: { accept: 'text/markdown' } }));
    assert.equal(exported.res.status, 200);
    assertNoStall('markdown export', exported);

    const markdown = await whilePolled(() => suite.server.api('POST', '/decks/import', {
      token: suite.user.token, body: exported.res.text, headers: { 'content-type': 'text/markdown' },
    }));
    assert.equal(markdown.res.status, 201, markdown.res.text.slice(0, 300));
    assertNoStall('markdown import', markdown);
    const reimported = await suite.server.api('GET', `/decks/${markdown.res.body.deckId}`, { token: suite.user.token });
    assert.deepEqual(reimported.body.cards.map((c: { front: string; back: string }) => [c.front, c.back]), cards.map((c) => [c.front, c.back]));
    assert.deepEqual(markdown.res.body.warnings, json.res.body.warnings);

    const target = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Append target' }, cards: [{ front: 'q' }] } });
    const appended = await whilePolled(() => suite.server.api('POST', `/decks/${target.body.deckId}/cards`, { token: suite.user.token, json: { cards: cards.slice(1) } }));
    assert.equal(appended.res.status, 200, appended.res.text.slice(0, 300));
    assert.equal(appended.res.body.cardCount, 250);
    assertNoStall('append', appended);
  });
});
