// npm run bench: the performance figures of issue 2 in one run (docs/performance.md explains them).
// Servers run as child processes (bench/server.ts) so autocannon and the server never share an
// event loop; on a 2-core machine they still share the cores, so every comparison is interleaved.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchDeck } from './deck-fixture.ts';
import { benchReviews } from './reviews.ts';
import { benchScale } from './scale.ts';
import { cannon, mean, median, percentile, round, startBenchServer, timedRequest, type BenchServer, type Throughput } from './measure.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 200);
const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 300);
const DEEP_PAGES = Number(process.env.BENCH_DEEP_PAGES ?? 400);
const LARGE_STORE = Number(process.env.BENCH_LARGE_STORE ?? 100_000);
// BENCH_ONLY=deck,import,list,reviews,scale runs a subset (while investigating one figure).
const ONLY = new Set((process.env.BENCH_ONLY ?? 'deck,import,list,reviews,scale').split(',').map((s) => s.trim()));

const log = (line: string) => process.stderr.write(`${line}\n`);
const auth = (server: BenchServer) => ({ authorization: `Bearer ${server.token}` });

async function deckThroughput(server: BenchServer) {
  const targets = {
    ceiling: { url: `${server.url}/bench/ceiling`, headers: {} },
    ceilingString: { url: `${server.url}/bench/ceiling-string`, headers: {} },
    route: { url: `${server.url}/api/v1/decks/${server.deckId}`, headers: auth(server) },
  };
  const real = await timedRequest(targets.route.url, { headers: auth(server) });
  for (const bare of [targets.ceiling, targets.ceilingString]) {
    const res = await timedRequest(bare.url);
    if (real.status !== 200 || real.body !== res.body || real.headers['content-type'] !== res.headers['content-type']) {
      throw new Error(`${bare.url} does not return the deck read's bytes`);
    }
  }
  const names = Object.keys(targets) as (keyof typeof targets)[];
  log(`GET deck: ${Buffer.byteLength(real.body)} bytes, ${CONNECTIONS} connections; warming up`);
  for (const name of names) await cannon(targets[name].url, targets[name].headers, 3, CONNECTIONS);
  // Interleaved rounds, so drift in the machine's load hits every target alike.
  const runs: Record<keyof typeof targets, Throughput[]> = { ceiling: [], ceilingString: [], route: [] };
  // The server's own CPU time per request: unlike req/s, barely moved by other load on the machine.
  const cpu: Record<keyof typeof targets, { seconds: number; clientSeconds: number; requests: number }> = {
    ceiling: { seconds: 0, clientSeconds: 0, requests: 0 },
    ceilingString: { seconds: 0, clientSeconds: 0, requests: 0 },
    route: { seconds: 0, clientSeconds: 0, requests: 0 },
  };
  for (let roundNo = 1; roundNo <= ROUNDS; roundNo++) {
    for (const name of names) {
      const cpuBefore = server.cpuSeconds();
      const clientBefore = process.cpuUsage();
      const result = await cannon(targets[name].url, targets[name].headers, SECONDS, CONNECTIONS);
      cpu[name].seconds += server.cpuSeconds() - cpuBefore;
      const client = process.cpuUsage(clientBefore);
      cpu[name].clientSeconds += (client.user + client.system) / 1e6;
      cpu[name].requests += result.requests;
      if (result.non2xx + result.errors > 0) throw new Error(`GET deck (${name}): ${result.non2xx + result.errors} failed requests`);
      runs[name].push(result);
      log(`  round ${roundNo} ${name.padEnd(13)} ${Math.round(result.reqPerSec)} req/s`);
    }
  }
  const rps = (name: keyof typeof targets) => mean(runs[name].map((r) => r.reqPerSec));
  const cpuUs = (name: keyof typeof targets) => (cpu[name].seconds / cpu[name].requests) * 1e6;
  const clientUs = (name: keyof typeof targets) => (cpu[name].clientSeconds / cpu[name].requests) * 1e6;
  // Each round's route run against the ceiling run just before it: drift between rounds cancels.
  const roundRatios = runs.route.map((r, i) => r.reqPerSec / (runs.ceiling[i] as Throughput).reqPerSec);
  const stringRatios = runs.route.map((r, i) => r.reqPerSec / (runs.ceilingString[i] as Throughput).reqPerSec);
  return {
    bytes: Buffer.byteLength(real.body),
    connections: CONNECTIONS,
    secondsPerRun: SECONDS,
    rounds: ROUNDS,
    routeReqPerSec: round(rps('route'), 0),
    ceilingReqPerSec: round(rps('ceiling'), 0),
    ratio: round(median(roundRatios), 3),
    roundRatios: roundRatios.map((r) => round(r, 3)),
    ceilingStringReqPerSec: round(rps('ceilingString'), 0),
    ratioToStringCeiling: round(median(stringRatios), 3),
    serverCpuUsPerRequest: Object.fromEntries(names.map((n) => [n, round(cpuUs(n), 1)])),
    clientCpuUsPerRequest: Object.fromEntries(names.map((n) => [n, round(clientUs(n), 1)])),
    p50Ms: Object.fromEntries(names.map((n) => [n, mean(runs[n].map((r) => r.p50Ms))])),
    runs: Object.fromEntries(names.map((n) => [n, runs[n].map((r) => round(r.reqPerSec, 0))])),
  };
}

async function importLatency(server: BenchServer) {
  const url = `${server.url}/api/v1/decks/import`;
  const exported = await timedRequest(`${server.url}/api/v1/decks/${server.deckId}`, { headers: { ...auth(server), accept: 'text/markdown' } });
  if (exported.status !== 200) throw new Error(`markdown export failed: ${exported.status}`);
  const bodies = {
    json: { type: 'application/json', body: JSON.stringify(benchDeck()) },
    markdown: { type: 'text/markdown', body: exported.body },
  };
  const samples: Record<'json' | 'markdown', number[]> = { json: [], markdown: [] };
  const warmup = 20;
  log(`import: ${warmup} warm-up and ${IMPORTS} timed imports per format, alternating`);
  for (let i = 0; i < warmup + IMPORTS; i++) {
    for (const format of ['json', 'markdown'] as const) {
      const { type, body } = bodies[format];
      const res = await timedRequest(url, { method: 'POST', headers: { ...auth(server), 'content-type': type }, body });
      if (res.status !== 201) throw new Error(`import (${format}) failed: ${res.status} ${res.body.slice(0, 200)}`);
      if (i >= warmup) samples[format].push(res.ms);
    }
  }
  const stats = (values: number[], body: string) => ({
    bodyBytes: Buffer.byteLength(body),
    p50Ms: round(percentile(values, 50)),
    p99Ms: round(percentile(values, 99)),
    meanMs: round(mean(values)),
  });
  return { requests: IMPORTS, json: stats(samples.json, bodies.json.body), markdown: stats(samples.markdown, bodies.markdown.body) };
}

async function listLatency(small: BenchServer, large: BenchServer) {
  const first = (server: BenchServer) => `${server.url}/api/v1/decks?limit=25`;
  // Follow nextToken DEEP_PAGES pages into the large store, then time that page like the others.
  let token: string | null = null;
  const followed: number[] = [];
  for (let page = 0; page < DEEP_PAGES; page++) {
    const url: string = token === null ? first(large) : `${first(large)}&token=${encodeURIComponent(token)}`;
    const res = await timedRequest(url, { headers: auth(large) });
    if (res.status !== 200) throw new Error(`list page ${page} failed: ${res.status}`);
    followed.push(res.ms);
    token = (JSON.parse(res.body) as { nextToken: string | null }).nextToken;
    if (token === null) throw new Error(`the large store ended after ${page + 1} pages`);
  }
  const deep = `${first(large)}&token=${encodeURIComponent(token as string)}`;
  const targets = { small: { server: small, url: first(small) }, large: { server: large, url: first(large) }, deep: { server: large, url: deep } };
  const samples: Record<keyof typeof targets, number[]> = { small: [], large: [], deep: [] };
  log(`list: ${LIST_REQUESTS} timed requests x 3 rounds per target, interleaved`);
  // The order turns every round: whichever target comes first after a switch measured slower.
  const orders: (keyof typeof targets)[][] = [['small', 'large', 'deep'], ['large', 'deep', 'small'], ['deep', 'small', 'large']];
  for (let roundNo = 0; roundNo < 4; roundNo++) {
    for (const name of orders[roundNo % orders.length] as (keyof typeof targets)[]) {
      const { server, url } = targets[name];
      for (let i = 0; i < LIST_REQUESTS; i++) {
        const res = await timedRequest(url, { headers: auth(server) });
        if (res.status !== 200) throw new Error(`list (${name}) failed: ${res.status}`);
        // Round 0 is the warm-up.
        if (roundNo > 0) samples[name].push(res.ms);
      }
    }
  }
  const p50 = (name: keyof typeof targets) => round(percentile(samples[name], 50), 3);
  return {
    requests: LIST_REQUESTS * 3,
    smallStoreDecks: 100,
    largeStoreDecks: LARGE_STORE,
    small: { p50Ms: p50('small'), p99Ms: round(percentile(samples.small, 99), 3) },
    large: { p50Ms: p50('large'), p99Ms: round(percentile(samples.large, 99), 3) },
    deep: { page: DEEP_PAGES + 1, p50Ms: p50('deep'), p99Ms: round(percentile(samples.deep, 99), 3) },
    largeOverSmall: round(p50('large') / p50('small'), 3),
    deepOverSmall: round(p50('deep') / p50('small'), 3),
    followPagesP50Ms: round(percentile(followed, 50), 3),
  };
}

/** The part of bench/scale.ts's figures printed in the table (all of them go to the JSON). */
interface ScaleFigures {
  skipped?: string;
  deckRead?: { postgresRedisReqPerSec: number; postgresOverSqlite: number };
}

function table(rows: [string, string, string, string][]): string {
  const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ')).join('\n');
}

async function main() {
  const started = Date.now();
  const wanted: [string, Record<string, string>][] = [];
  if (ONLY.has('deck') || ONLY.has('import') || ONLY.has('reviews')) wanted.push(['deck', { BENCH_ROLE: 'deck' }]);
  if (ONLY.has('list')) {
    log(`seeding ${LARGE_STORE} decks into one store...`);
    wanted.push(['list100', { BENCH_ROLE: 'list', BENCH_LIST_DECKS: '100' }]);
    wanted.push(['list100k', { BENCH_ROLE: 'list', BENCH_LIST_DECKS: String(LARGE_STORE) }]);
  }
  const starting = await Promise.allSettled(wanted.map(([name, env]) => startBenchServer(name, env)));
  const servers = starting.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failed = starting.find((s) => s.status === 'rejected');
  if (failed) {
    await Promise.all(servers.map((s) => s.stop()));
    throw failed.reason;
  }
  const byName = (name: string) => servers.find((s) => s.name === name) as BenchServer;
  try {
    const deck = ONLY.has('deck') ? await deckThroughput(byName('deck')) : null;
    const imports = ONLY.has('import') ? await importLatency(byName('deck')) : null;
    const list = ONLY.has('list') ? await listLatency(byName('list100'), byName('list100k')) : null;
    if (ONLY.has('reviews')) log('reviews: answer 250 cards one at a time, then complete (bench/reviews.ts)');
    const reviews = ONLY.has('reviews') ? await benchReviews(byName('deck').url, byName('deck').token) : null;
    // PostgreSQL + Redis beside SQLite (issue 4, docs/deployment.md); skipped without a database.
    if (ONLY.has('scale')) log('scale: PostgreSQL + Redis beside SQLite (bench/scale.ts)');
    const scale = ONLY.has('scale') ? (await benchScale()) as ScaleFigures : null;
    const goals = {
      deckRatio: deck && { goal: '>= 0.7', met: deck.ratio >= 0.7 },
      importJsonP50: imports && { goal: '< 25 ms', met: imports.json.p50Ms < 25 },
      importMarkdownP50: imports && { goal: '< 25 ms', met: imports.markdown.p50Ms < 25 },
      listLargeOverSmall: list && { goal: '<= 1.2', met: list.largeOverSmall <= 1.2 },
    };
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    const results = {
      at: new Date().toISOString(),
      machine: {
        node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '',
        platform: `${os.platform()} ${os.release()}`, loadAverage1mAtEnd: round(os.loadavg()[0] ?? 0),
      },
      deck, imports, list, reviews, scale, goals,
      runSeconds: Math.round((Date.now() - started) / 1000),
    };
    const rows: [string, string, string, string][] = [['figure', 'value', 'goal', 'verdict']];
    if (deck) {
      rows.push(
        [`GET /decks/{id} (250 cards, ${Math.round(deck.bytes / 1024)} KiB), req/s`, String(deck.routeReqPerSec), '', ''],
        ['bare route, same bytes as a Buffer (ceiling), req/s', String(deck.ceilingReqPerSec), '', ''],
        ['  ratio (median of the rounds)', deck.ratio.toFixed(3), '>= 0.7', verdict(deck.ratio >= 0.7)],
        ['bare route, same bytes as a string, req/s', String(deck.ceilingStringReqPerSec), '', ''],
        ['  ratio to the string route', deck.ratioToStringCeiling.toFixed(3), '', ''],
        ['server CPU µs per request, route / ceiling', `${deck.serverCpuUsPerRequest.route} / ${deck.serverCpuUsPerRequest.ceiling}`, '', ''],
        ['autocannon CPU µs per request, route / ceiling', `${deck.clientCpuUsPerRequest.route} / ${deck.clientCpuUsPerRequest.ceiling}`, '', ''],
      );
    }
    if (imports) {
      rows.push(
        ['POST /decks/import JSON, p50 / p99 ms', `${imports.json.p50Ms} / ${imports.json.p99Ms}`, 'p50 < 25', verdict(imports.json.p50Ms < 25)],
        ['POST /decks/import markdown, p50 / p99 ms', `${imports.markdown.p50Ms} / ${imports.markdown.p99Ms}`, 'p50 < 25', verdict(imports.markdown.p50Ms < 25)],
      );
    }
    if (list) {
      rows.push(
        ['GET /decks?limit=25, 100 decks, p50 ms', String(list.small.p50Ms), '', ''],
        [`GET /decks?limit=25, ${LARGE_STORE} decks, p50 ms`, String(list.large.p50Ms), '', ''],
        ['  large / small', list.largeOverSmall.toFixed(3), '<= 1.2', verdict(list.largeOverSmall <= 1.2)],
        [`  page ${list.deep.page} of the large store, p50 ms`, String(list.deep.p50Ms), '', ''],
      );
    }
    if (reviews) {
      rows.push(
        ['POST /reviews/{id}/answers, p50 / p99 ms', `${reviews.answerP50Ms} / ${reviews.answerP99Ms}`, 'p50 < 5', verdict(reviews.answerP50Ms < 5)],
        ['POST /reviews/{id}/complete (250 answers), ms', String(reviews.completeMs), '', ''],
      );
    }
    if (scale?.skipped) rows.push(['PostgreSQL + Redis figures', 'skipped', '', '']);
    if (scale?.deckRead) {
      rows.push(
        ['GET /decks/{id} on PostgreSQL + Redis, req/s', String(scale.deckRead.postgresRedisReqPerSec), '', ''],
        ['  PostgreSQL / SQLite', scale.deckRead.postgresOverSqlite.toFixed(3), '>= 0.6', verdict(scale.deckRead.postgresOverSqlite >= 0.6)],
      );
    }
    process.stdout.write(`\n${table(rows)}\n\n`);
    if (scale?.skipped) process.stdout.write(`scale figures skipped: ${scale.skipped}\n`);
    const out = path.join(path.dirname(fileURLToPath(import.meta.url)), 'results', 'latest.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
    process.stdout.write(`figures written to ${path.relative(process.cwd(), out)} (run took ${results.runSeconds} s; load average ${results.machine.loadAverage1mAtEnd} on ${results.machine.cpus} cores)\n`);
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
