// npm run bench: the figures of issue 10 (docs/performance.md says how each is measured).
// Every server is its own process on a real port; every throughput figure is wrk's, beside each
// server's CPU per request and RSS from /proc, in interleaved rounds. Prints tables and writes all
// figures to bench/results/bench-<time>.json and bench/results/latest.json.
//
// BENCH_ONLY=deck,whoami,import,soak,postgres,list,reviews,scale,mcp runs a subset (default: all).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { IMPORT_WARMUP, IMPORTS, importLatency } from './imports.ts';
import { listLatency } from './list.ts';
import { benchMcp } from './mcp.ts';
import { round } from './measure.ts';
import { againstCeiling, API, postgresAgainstSqlite, startCeilingFor, startDeckServer, type DeckServer } from './reads.ts';
import { goals, report, type Results } from './report.ts';
import { benchReviews } from './reviews.ts';
import { benchScale } from './scale.ts';
import { postgresRedisUrls, ROOT, START_ENTRY, START_FLAGS, type Ceiling } from './servers.ts';
import { soak, SOAK_MODE } from './soak.ts';
import { CONNECTIONS, ROUNDS, SECONDS, THREADS, WARMUP_SECONDS } from './throughput.ts';
import { findWrk, WRK_INSTALL_HINT, wrkVersion } from './wrk.ts';

const PARTS = ['deck', 'whoami', 'import', 'soak', 'postgres', 'list', 'reviews', 'scale', 'mcp'] as const;
type Part = (typeof PARTS)[number];
const THROUGHPUT: Part[] = ['deck', 'whoami', 'soak', 'postgres', 'scale', 'mcp'];

const log = (line: string) => process.stderr.write(`${line}\n`);

function selectedParts(): Set<Part> {
  const asked = (process.env.BENCH_ONLY ?? PARTS.join(',')).split(',').map((s) => s.trim()).filter((s) => s !== '');
  const unknown = asked.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length > 0) throw new Error(`BENCH_ONLY: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  return new Set(asked as Part[]);
}

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

async function main(): Promise<number> {
  const started = Date.now();
  const parts = selectedParts();
  const results: Results = {};
  const skip = (part: Part, why: string) => {
    (results as Record<string, unknown>)[part === 'import' ? 'imports' : part] = { skipped: why };
    parts.delete(part);
  };
  let wrkMissing = false;
  if (findWrk() === null) {
    for (const part of THROUGHPUT) {
      if (parts.has(part)) {
        wrkMissing = true;
        skip(part, WRK_INSTALL_HINT);
      }
    }
    if (wrkMissing) log(WRK_INSTALL_HINT);
  }
  if (SOAK_MODE === 'off' && parts.has('soak')) skip('soak', 'BENCH_SOAK=off');
  const pgUrls = postgresRedisUrls();
  for (const part of ['postgres', 'scale'] as const) {
    if (parts.has(part) && pgUrls === null) {
      skip(part, 'no PostgreSQL and Redis: set BENCH_DATABASE_URL and BENCH_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL)');
    }
  }

  const commit = git(['rev-parse', 'HEAD']);
  const machine = {
    node: process.version, wrk: wrkVersion(), cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? '',
    platform: `${os.platform()} ${os.release()}`, loadAverageAtStart: os.loadavg().map((v) => round(v)),
  };
  const settings = {
    parts: [...parts], rounds: ROUNDS, secondsPerRun: SECONDS, warmupSeconds: WARMUP_SECONDS, connections: CONNECTIONS, wrkThreads: THREADS,
    imports: IMPORTS, importWarmup: IMPORT_WARMUP, soak: SOAK_MODE, serverNodeFlags: START_FLAGS,
  };
  log(`bench: ${[...parts].join(', ') || 'nothing'}; load average ${machine.loadAverageAtStart.join(' ')} on ${machine.cpus} cores`);

  let deck: DeckServer | null = null;
  let ceiling: Ceiling | null = null;
  try {
    const needsDeck = ['deck', 'whoami', 'import', 'postgres', 'reviews', 'scale', 'mcp'].some((p) => parts.has(p as Part));
    if (needsDeck) deck = await startDeckServer('flashdeck');
    if (deck && (parts.has('deck') || parts.has('whoami'))) {
      const paths = [deck.deckPath, `${API}/whoami`];
      const started = await startCeilingFor(deck, paths);
      ceiling = started.ceiling;
      if (parts.has('deck')) results.deck = await againstCeiling('deck', deck, ceiling, deck.deckPath, started.real[deck.deckPath]);
      if (parts.has('whoami')) results.whoami = await againstCeiling('whoami', deck, ceiling, `${API}/whoami`, started.real[`${API}/whoami`]);
      await ceiling.stop();
      ceiling = null;
    }
    if (deck && parts.has('postgres') && pgUrls) results.postgres = await postgresAgainstSqlite(pgUrls, deck);
    if (deck && parts.has('mcp')) results.mcp = await benchMcp(deck);
    if (deck && parts.has('import')) results.imports = await importLatency(deck);
    if (deck && parts.has('reviews')) {
      log('reviews: answer 250 cards one at a time, then complete (bench/reviews.ts)');
      results.reviews = await benchReviews(deck.server.url, deck.token);
    }
    if (parts.has('list')) results.list = await listLatency();
    if (deck && parts.has('scale') && pgUrls) results.scale = await benchScale(pgUrls, deck);
    if (parts.has('soak')) results.soak = await soak();
  } finally {
    await ceiling?.stop();
    await deck?.server.stop();
  }

  const loadAverageAtEnd = os.loadavg().map((v) => round(v));
  const dirty = (git(['status', '--porcelain']) ?? '') !== '';
  const at = new Date().toISOString();
  const header = [
    `Flashdeck bench, ${at}; commit ${commit?.slice(0, 12) ?? 'unknown'}${dirty ? ' (with uncommitted changes)' : ''}`,
    `Node ${machine.node}, wrk ${machine.wrk ?? 'missing'}, ${machine.cpus} CPUs (${machine.cpuModel}), ${machine.platform}`,
    `servers run as npm start does: node ${[...START_FLAGS, START_ENTRY].join(' ')}`,
    `load average (1, 5, 15 min) at start ${machine.loadAverageAtStart.join(' ')}, at end ${loadAverageAtEnd.join(' ')}: ` +
      'other work on the machine moves req/s; CPU per request moves less',
  ].join('\n');
  process.stdout.write(`\n${report(results, header)}\n`);

  const out = {
    at, commit, dirty, machine: { ...machine, loadAverageAtEnd }, settings, ...results, goals: goals(results),
    runSeconds: Math.round((Date.now() - started) / 1000),
  };
  const dir = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `bench-${at.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  fs.copyFileSync(file, path.join(dir, 'latest.json'));
  process.stdout.write(`figures written to ${path.relative(process.cwd(), file)} and bench/results/latest.json (run took ${out.runSeconds} s)\n`);
  return wrkMissing ? 1 : 0;
}

main().then((code) => { process.exitCode = code; }, (error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exitCode = 1;
});
