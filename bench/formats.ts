// npm run bench:formats: the figures of issue 24 (images, CSV and Anki packages), each measured
// against a real port on a server run as `npm start` runs it (docs/performance.md, "Formats"):
// - apkg: POST /decks/import/apkg of an .apkg of 5,000 notes and 500 random images (~50 MB, made
//   by anki-apkg-export: test/fixtures/anki/large-package.ts), one import per round on a fresh
//   server: wall time, the server's RSS growth (sampled every 20 ms from /proc, and VmHWM), its
//   CPU, and GET /healthz polled every 100 ms throughout (its largest latency).
// - csv: POST /decks/import of the same 250 cards as CSV and as JSON, alternating, one at a time:
//   p50 of each and their ratio.
// - media: GET /media/<sha256>.<ext> against bench/ceiling.ts (bare node:http) sending the same
//   bytes and headers, wrk in interleaved rounds (bench/throughput.ts), with CPU per request and RSS.
// Prints the figures and writes them to bench/results/formats-<time>.json and formats-latest.json.
//
// BENCH_ONLY=apkg,csv,media picks parts; BENCH_APKG_ROUNDS (3), BENCH_IMPORTS (70),
// BENCH_IMPORT_WARMUP (10), BENCH_MEDIA_SIZES (bytes, "4096,102400"), and bench/throughput.ts's
// BENCH_ROUNDS, BENCH_SECONDS, BENCH_WARMUP_SECONDS, BENCH_CONNECTIONS.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { exportDeckCsv } from '../src/modules/deck-import/deck-csv.ts';
import { largeAnkiPackage, randomPng } from '../test/fixtures/anki/large-package.ts';
import { benchDeck } from './deck-fixture.ts';
import { median, percentile, round } from './measure.ts';
import { MB } from './proc.ts';
import { comparisonTable } from './report.ts';
import { capture, cliUser, headBytes, ROOT, startCeiling, startFlashdeck, type Flashdeck } from './servers.ts';
import { compare, type Comparison } from './throughput.ts';
import { findWrk, WRK_INSTALL_HINT, wrkVersion } from './wrk.ts';
import { binaryRequest, hwmBytes, pollHealth, sampleRss } from './formats-tools.ts';

const PARTS = ['apkg', 'csv', 'media'] as const;
type Part = (typeof PARTS)[number];
const API = '/api/v1';
const APKG = { notes: 5000, images: 500, imageBytes: 100_000 };
const APKG_ROUNDS = Number(process.env.BENCH_APKG_ROUNDS ?? 3);
const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 70);
const IMPORT_WARMUP = Number(process.env.BENCH_IMPORT_WARMUP ?? 10);
const MEDIA_SIZES = (process.env.BENCH_MEDIA_SIZES ?? '4096,102400').split(',').map(Number);

const log = (line: string) => process.stderr.write(`${line}\n`);

function selectedParts(): Part[] {
  const asked = (process.env.BENCH_ONLY ?? PARTS.join(',')).split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = asked.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  return asked as Part[];
}

async function withServer<T>(name: string, work: (server: Flashdeck, auth: Record<string, string>) => Promise<T>): Promise<T> {
  const server = await startFlashdeck(name, { kind: 'sqlite' });
  try {
    const { token } = await cliUser(server, `${name}@bench.example`);
    return await work(server, { authorization: `Bearer ${token}` });
  } finally {
    await server.stop();
  }
}

/** The 50 MB package, made once and kept under bench/results/fixtures/. */
async function apkgFixture(): Promise<Buffer> {
  const file = path.join(ROOT, 'bench/results/fixtures', `anki-${APKG.notes}-notes-${APKG.images}-images.apkg`);
  if (fs.existsSync(file)) return fs.readFileSync(file);
  log(`apkg: making ${path.relative(ROOT, file)} with anki-apkg-export (${APKG.notes} notes, ${APKG.images} images of ~${APKG.imageBytes} B)`);
  const data = await largeAnkiPackage(APKG);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  return data;
}

export interface ApkgRound {
  importSeconds: number;
  serverCpuSeconds: number;
  rssBeforeMB: number;
  rssPeakMB: number;
  rssAfterMB: number;
  /** Largest sampled RSS minus RSS before; VmHWM minus RSS before (the kernel's own peak). */
  rssGrowthMB: number;
  hwmGrowthMB: number;
  healthzPolls: number;
  healthzMaxMs: number;
  healthzP50Ms: number;
  decks: number;
  cards: number;
  loadAverage: number;
}

async function apkgRound(n: number, data: Buffer): Promise<ApkgRound> {
  const small = fs.readFileSync(path.join(ROOT, 'test/fixtures/anki/genanki-js.apkg'));
  return withServer(`apkg-${n}`, async (server, auth) => {
    const url = `${server.url}${API}/decks/import/apkg`;
    const headers = { ...auth, 'content-type': 'application/octet-stream' };
    // A small package first: the worker's modules and the import path are loaded before the
    // baseline is read, as on a server that has imported anything before.
    const warm = await binaryRequest(url, headers, small);
    if (warm.status !== 201) throw new Error(`apkg warm-up: ${warm.status} ${warm.body.slice(0, 300)}`);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const rssBefore = server.rssBytes();
    const cpuBefore = server.cpuSeconds();
    const rss = sampleRss(server.pid, 20);
    const health = pollHealth(`${server.url}/healthz`, 100);
    const res = await binaryRequest(url, headers, data);
    const serverCpuSeconds = server.cpuSeconds() - cpuBefore;
    const polls = await health.stop();
    const peak = rss.stop();
    const hwm = hwmBytes(server.pid);
    const rssAfter = server.rssBytes();
    if (res.status !== 201) throw new Error(`apkg import: ${res.status} ${res.body.slice(0, 300)}`);
    const body = JSON.parse(res.body) as { decks: { cardCount?: number; cards?: unknown[]; warnings?: { code: string }[] }[] };
    const skipped = body.decks.flatMap((d) => d.warnings ?? []).filter((w) => w.code === 'IMAGE_SKIPPED');
    if (skipped.length > 0) throw new Error(`apkg import skipped ${skipped.length} images`);
    if (polls.some((p) => p.status !== 200)) throw new Error('GET /healthz failed during the import');
    const ms = polls.map((p) => p.ms);
    const figures: ApkgRound = {
      importSeconds: round(res.ms / 1000, 2),
      serverCpuSeconds: round(serverCpuSeconds, 2),
      rssBeforeMB: round(rssBefore / MB, 1),
      rssPeakMB: round(peak / MB, 1),
      rssAfterMB: round(rssAfter / MB, 1),
      rssGrowthMB: round((peak - rssBefore) / MB, 1),
      hwmGrowthMB: round((hwm - rssBefore) / MB, 1),
      healthzPolls: polls.length,
      healthzMaxMs: round(Math.max(...ms), 1),
      healthzP50Ms: round(percentile(ms, 50), 1),
      decks: body.decks.length,
      cards: body.decks.reduce((n, d) => n + (d.cardCount ?? d.cards?.length ?? 0), 0),
      loadAverage: round(os.loadavg()[0] ?? 0),
    };
    log(`  round ${n}: ${figures.importSeconds} s, RSS +${figures.rssGrowthMB} MB (VmHWM +${figures.hwmGrowthMB} MB), /healthz max ${figures.healthzMaxMs} ms of ${figures.healthzPolls} polls, ${figures.decks} decks (load ${figures.loadAverage})`);
    return figures;
  });
}

export interface ApkgFigures {
  packageBytes: number;
  notes: number;
  images: number;
  rounds: ApkgRound[];
  median: { importSeconds: number; rssGrowthMB: number; hwmGrowthMB: number; healthzMaxMs: number; serverCpuSeconds: number };
  /** The worst round's /healthz latency: the goal is "under 1 s throughout". */
  worstHealthzMs: number;
}

async function benchApkg(): Promise<ApkgFigures> {
  const data = await apkgFixture();
  log(`apkg: ${(data.length / MB).toFixed(1)} MB package, ${APKG_ROUNDS} rounds, each on a fresh server`);
  const rounds: ApkgRound[] = [];
  for (let r = 1; r <= APKG_ROUNDS; r++) rounds.push(await apkgRound(r, data));
  const m = (pick: (r: ApkgRound) => number) => round(median(rounds.map(pick)), 2);
  return {
    packageBytes: data.length, ...APKG, rounds,
    median: { importSeconds: m((r) => r.importSeconds), rssGrowthMB: m((r) => r.rssGrowthMB), hwmGrowthMB: m((r) => r.hwmGrowthMB), healthzMaxMs: m((r) => r.healthzMaxMs), serverCpuSeconds: m((r) => r.serverCpuSeconds) },
    worstHealthzMs: Math.max(...rounds.map((r) => r.healthzMaxMs)),
  };
}

interface ImportStats { bodyBytes: number; p50Ms: number; p90Ms: number; p99Ms: number; serverCpuMs: number }
export interface CsvFigures { requests: number; warmup: number; csv: ImportStats; json: ImportStats; p50Ratio: number; cpuRatio: number }

/** The fixture's 250 cards as CSV carries them (front, back, tags), as CSV and as JSON. */
function csvAndJson(): { csv: string; json: string; title: string } {
  const fixture = benchDeck();
  const title = 'Benchmark deck: CSV against JSON';
  const cards = fixture.cards.map((c) => {
    const tags = (c.extras?.tags as string[] | undefined) ?? [];
    return { front: c.front, back: c.back, ...(tags.length > 0 ? { extras: { tags } } : {}) };
  });
  const csv = exportDeckCsv({ cards: cards as never });
  return { csv, json: JSON.stringify({ deck: { title, lang: 'en' }, cards }), title };
}

async function benchCsv(): Promise<CsvFigures> {
  const { csv, json, title } = csvAndJson();
  return withServer('csv', async (server, auth) => {
    const bodies = {
      csv: { url: `${server.url}${API}/decks/import?title=${encodeURIComponent(title)}&lang=en`, type: 'text/csv; charset=utf-8', body: Buffer.from(csv) },
      json: { url: `${server.url}${API}/decks/import`, type: 'application/json', body: Buffer.from(json) },
    };
    // Both make the same deck: checked once, card by card.
    const made: Record<string, unknown> = {};
    for (const format of ['csv', 'json'] as const) {
      const res = await binaryRequest(bodies[format].url, { ...auth, 'content-type': bodies[format].type }, bodies[format].body, true);
      if (res.status !== 201) throw new Error(`${format} import: ${res.status} ${res.body.slice(0, 300)}`);
      const deckId = (JSON.parse(res.body) as { deckId: string }).deckId;
      const deck = JSON.parse((await capture(`${server.url}${API}/decks/${deckId}`, { headers: auth })).body.toString()) as { title: string; lang: string; cards: Record<string, unknown>[] };
      made[format] = { title: deck.title, lang: deck.lang, cards: deck.cards.map((c) => [c.front, c.back, c.extras]) };
    }
    if (JSON.stringify(made.csv) !== JSON.stringify(made.json)) throw new Error('the CSV and JSON imports made different decks');
    log(`csv: ${IMPORT_WARMUP} warm-up and ${IMPORTS} timed creates per format, CSV and JSON alternating, one at a time`);
    const samples = { csv: [] as number[], json: [] as number[] };
    const cpu = { csv: 0, json: 0 };
    for (let i = 0; i < IMPORT_WARMUP + IMPORTS; i++) {
      const order: ('csv' | 'json')[] = i % 2 === 0 ? ['csv', 'json'] : ['json', 'csv'];
      for (const format of order) {
        const before = server.cpuSeconds();
        const res = await binaryRequest(bodies[format].url, { ...auth, 'content-type': bodies[format].type }, bodies[format].body, true);
        if (res.status !== 201) throw new Error(`${format} import: ${res.status} ${res.body.slice(0, 300)}`);
        if (i >= IMPORT_WARMUP) {
          samples[format].push(res.ms);
          cpu[format] += server.cpuSeconds() - before;
        }
      }
    }
    const stats = (format: 'csv' | 'json'): ImportStats => ({
      bodyBytes: bodies[format].body.length,
      p50Ms: round(percentile(samples[format], 50)), p90Ms: round(percentile(samples[format], 90)), p99Ms: round(percentile(samples[format], 99)),
      serverCpuMs: round((cpu[format] / IMPORTS) * 1000),
    });
    const c = stats('csv');
    const j = stats('json');
    return { requests: IMPORTS, warmup: IMPORT_WARMUP, csv: c, json: j, p50Ratio: round(c.p50Ms / j.p50Ms, 3), cpuRatio: round(c.serverCpuMs / j.serverCpuMs, 3) };
  });
}

export interface MediaFigures extends Comparison { imageBytes: number; headBytes: number; path: string }

async function benchMedia(): Promise<MediaFigures[]> {
  return withServer('media', async (server, auth) => {
    const out: MediaFigures[] = [];
    for (const size of MEDIA_SIZES) {
      const image = randomPng(size);
      const up = await binaryRequest(`${server.url}${API}/media`, { ...auth, 'content-type': 'image/png' }, image);
      if (up.status !== 201) throw new Error(`POST /media: ${up.status} ${up.body.slice(0, 300)}`);
      const mediaPath = (JSON.parse(up.body) as { url: string }).url;
      const real = await capture(`${server.url}${mediaPath}`);
      if (real.status !== 200 || !real.body.equals(image)) throw new Error(`GET ${mediaPath}: ${real.status}`);
      const ceiling = await startCeiling({ [mediaPath]: real });
      try {
        await ceiling.check(mediaPath, real);
        const comparison = await compare(`media ${image.length} B`,
          { label: 'Flashdeck', url: `${server.url}${mediaPath}`, servers: [server] },
          { label: 'node:http', url: `${ceiling.url}${mediaPath}`, servers: [ceiling] });
        out.push({ path: '/media/<sha256>.png', imageBytes: image.length, headBytes: headBytes(real.rawHeaders), ...comparison });
      } finally {
        await ceiling.stop();
      }
    }
    return out;
  });
}

interface Goal { figure: string; value: number; goal: string; met: boolean }

function goals(r: { apkg?: ApkgFigures; csv?: CsvFigures; media?: MediaFigures[] }): Goal[] {
  const out: Goal[] = [];
  if (r.apkg) {
    out.push({ figure: 'apkg import, s (median)', value: r.apkg.median.importSeconds, goal: '< 15', met: r.apkg.median.importSeconds < 15 });
    const growth = Math.max(r.apkg.median.rssGrowthMB, r.apkg.median.hwmGrowthMB);
    out.push({ figure: 'apkg import, server RSS growth MB (median, larger of sampled and VmHWM)', value: growth, goal: '< 150', met: growth < 150 });
    out.push({ figure: 'apkg import, GET /healthz latency max ms (worst round)', value: r.apkg.worstHealthzMs, goal: '< 1000', met: r.apkg.worstHealthzMs < 1000 });
  }
  if (r.csv) out.push({ figure: 'CSV / JSON import of 250 cards, p50 ratio', value: r.csv.p50Ratio, goal: '<= 1.2', met: r.csv.p50Ratio <= 1.2 });
  for (const m of r.media ?? []) {
    out.push({ figure: `GET /media (${m.imageBytes} B) req/s / node:http (median of rounds)`, value: m.median.ratio, goal: '>= 0.7', met: m.median.ratio >= 0.7 });
  }
  return out;
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ')).join('\n');
}

async function main(): Promise<number> {
  const started = Date.now();
  const parts = selectedParts();
  if (parts.includes('media') && findWrk() === null) throw new Error(WRK_INSTALL_HINT);
  const loadAtStart = os.loadavg().map((v) => round(v));
  log(`bench:formats: ${parts.join(', ')}; load average ${loadAtStart.join(' ')} on ${os.cpus().length} cores`);
  const results: { apkg?: ApkgFigures; csv?: CsvFigures; media?: MediaFigures[] } = {};
  if (parts.includes('apkg')) results.apkg = await benchApkg();
  if (parts.includes('csv')) results.csv = await benchCsv();
  if (parts.includes('media')) results.media = await benchMedia();
  const loadAtEnd = os.loadavg().map((v) => round(v));

  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch { /* not a checkout */ }
  const at = new Date().toISOString();
  const lines = [
    `Flashdeck bench:formats, ${at}; commit ${commit.slice(0, 12)}`,
    `Node ${process.version}, wrk ${wrkVersion() ?? 'missing'}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? ''}), ${os.platform()} ${os.release()}`,
    `load average (1, 5, 15 min) at start ${loadAtStart.join(' ')}, at end ${loadAtEnd.join(' ')}`,
  ];
  const a = results.apkg;
  if (a) {
    lines.push('', `POST /decks/import/apkg: ${(a.packageBytes / MB).toFixed(1)} MB, ${a.notes} notes, ${a.images} images (anki-apkg-export); one import per round on a fresh server`);
    lines.push(table([
      ['round', 'import s', 'CPU s', 'RSS before MB', 'peak MB', 'after MB', 'growth MB', 'VmHWM growth MB', '/healthz max ms', 'p50 ms', 'polls', 'decks', 'cards', 'load'],
      ...a.rounds.map((r, i) => [String(i + 1), ...[r.importSeconds, r.serverCpuSeconds, r.rssBeforeMB, r.rssPeakMB, r.rssAfterMB, r.rssGrowthMB, r.hwmGrowthMB, r.healthzMaxMs, r.healthzP50Ms, r.healthzPolls, r.decks, r.cards, r.loadAverage].map(String)]),
      ['median', String(a.median.importSeconds), String(a.median.serverCpuSeconds), '', '', '', String(a.median.rssGrowthMB), String(a.median.hwmGrowthMB), String(a.median.healthzMaxMs), '', '', '', '', ''],
    ]));
  }
  const c = results.csv;
  if (c) {
    lines.push('', `POST /decks/import, 250 cards, ${c.requests} creates each after ${c.warmup} warm-up, alternating, one at a time`);
    lines.push(table([
      ['format', 'body B', 'p50 ms', 'p90 ms', 'p99 ms', 'server CPU ms/import'],
      ...(['csv', 'json'] as const).map((f) => [f, ...[c[f].bodyBytes, c[f].p50Ms, c[f].p90Ms, c[f].p99Ms, c[f].serverCpuMs].map(String)]),
      ['csv / json', '', String(c.p50Ratio), '', '', String(c.cpuRatio)],
    ]));
  }
  for (const m of results.media ?? []) lines.push('', comparisonTable(`GET ${m.path}: ${m.imageBytes} B body, ${m.headBytes} B of headers`, m));
  const g = goals(results);
  if (g.length > 0) lines.push('', table([['goal (issue 24)', 'value', 'goal', 'verdict'], ...g.map((x) => [x.figure, String(x.value), x.goal, x.met ? 'met' : 'MISSED'])]));
  process.stdout.write(`\n${lines.join('\n')}\n`);

  const dir = path.join(ROOT, 'bench/results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `formats-${at.replace(/[:.]/g, '-')}.json`);
  const out = { at, commit, machine: { node: process.version, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model, loadAtStart, loadAtEnd }, ...results, goals: g, runSeconds: Math.round((Date.now() - started) / 1000) };
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  fs.copyFileSync(file, path.join(dir, 'formats-latest.json'));
  process.stdout.write(`figures written to ${path.relative(process.cwd(), file)} (run took ${out.runSeconds} s)\n`);
  return g.every((x) => x.met) ? 0 : 1;
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  process.stderr.write(`bench:formats failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
