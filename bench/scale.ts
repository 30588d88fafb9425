// The scale-out figures (issue 4), for bench/run.ts to call:
//
//   export async function benchScale(): Promise<object>
//
// It resolves to a JSON-ready object and never throws for a missing database: without a
// PostgreSQL and a Redis to use it resolves to `{ skipped: '<reason>' }`. Which ones:
// BENCH_DATABASE_URL and BENCH_REDIS_URL, else TEST_DATABASE_URL and TEST_REDIS_URL. It works in
// a fresh schema of its own (dropped after) and removes its Redis keys. Progress goes to stderr.
//
// What it measures, on one 250-card deck (bench/deck-fixture.ts), with rounds interleaved so drift
// in the machine's load hits every target alike:
// - GET /decks/{deckId} req/s and server CPU per request: SQLite, PostgreSQL + Redis with one
//   instance, and with two instances on the same schema (one load generator per instance);
// - POST /decks/import of the 250 cards, JSON and markdown, p50/p99 one at a time: SQLite, and
//   PostgreSQL + Redis;
// - imports per second under concurrent clients: PostgreSQL + Redis with one instance and two;
// - PostgreSQL bytes per deck, card and activity row (with indexes), for capacity estimates.
// Goal: PostgreSQL read throughput at least 0.6x the SQLite figure. On a two-core machine the
// two-instance figure is bounded by the cores (servers, PostgreSQL, Redis and the load generator
// share them), so it is reported and explained (docs/deployment.md), not tuned for.
//
// Standalone: `npx node bench/scale.ts` prints the object as JSON.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { benchDeck } from './deck-fixture.ts';
import { cannon, mean, percentile, round, startBenchServer, timedRequest, type BenchServer } from './measure.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SCALE_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const IMPORTS = Number(process.env.BENCH_SCALE_IMPORTS ?? 100);
const ROUNDS = Number(process.env.BENCH_SCALE_ROUNDS ?? 3);

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Target {
  name: string;
  url: string;
  token: string;
  deckId: string;
  cpuSeconds(): number;
}

function withSchema(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

// Linux: utime + stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (USER_HZ, 100).
function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** A second plain instance (src/server.ts) on the first one's store. */
async function startPlainInstance(env: Record<string, string>, from: BenchServer): Promise<{ target: Target; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'src/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DECK_LIMIT: 'none',
      RATE_LIMIT_PER_MINUTE: '1000000000', RATE_LIMIT_PER_DAY: '1000000000',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error('the second instance did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    target: {
      name: 'postgres-redis #2', url, token: from.token, deckId: from.deckId as string,
      cpuSeconds: () => processCpuSeconds(child.pid as number),
    },
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

function asTarget(server: BenchServer, name: string): Target {
  return { name, url: server.url, token: server.token, deckId: server.deckId as string, cpuSeconds: () => server.cpuSeconds() };
}

const deckUrl = (t: Target) => `${t.url}/api/v1/decks/${t.deckId}`;
const auth = (t: Target) => ({ authorization: `Bearer ${t.token}` });

/** req/s of GET deck against a set of instances at once (one load generator per instance). */
async function readThroughput(targets: Target[]): Promise<{ reqPerSec: number; perInstance: number[]; cpuUsPerRequest: number }> {
  const perConnections = Math.max(1, Math.round(CONNECTIONS / targets.length));
  const cpuBefore = targets.map((t) => t.cpuSeconds());
  const results = await Promise.all(targets.map((t) => cannon(deckUrl(t), auth(t), SECONDS, perConnections)));
  const failed = results.reduce((n, r) => n + r.non2xx + r.errors, 0);
  if (failed > 0) throw new Error(`GET deck on ${targets.map((t) => t.name).join(' + ')}: ${failed} failed requests`);
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const cpu = targets.reduce((s, t, i) => s + (t.cpuSeconds() - (cpuBefore[i] as number)), 0);
  return { reqPerSec: results.reduce((s, r) => s + r.reqPerSec, 0), perInstance: results.map((r) => round(r.reqPerSec, 0)), cpuUsPerRequest: (cpu / requests) * 1e6 };
}

/** Imports per second with CONNECTIONS concurrent clients spread over the instances. */
async function importThroughput(targets: Target[], body: string): Promise<number> {
  const perConnections = Math.max(1, Math.round(4 / targets.length));
  const results = await Promise.all(targets.map((t) => autocannon({
    url: `${t.url}/api/v1/decks/import`, method: 'POST', body, connections: perConnections, duration: SECONDS, pipelining: 1,
    headers: { ...auth(t), 'content-type': 'application/json' },
  })));
  const failed = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
  if (failed > 0) throw new Error(`import load on ${targets.map((t) => t.name).join(' + ')}: ${failed} failed requests`);
  return results.reduce((s, r) => s + r.requests.average, 0);
}

async function importLatency(t: Target): Promise<Record<'json' | 'markdown', { p50Ms: number; p99Ms: number }>> {
  const exported = await timedRequest(deckUrl(t), { headers: { ...auth(t), accept: 'text/markdown' } });
  if (exported.status !== 200) throw new Error(`markdown export failed: ${exported.status}`);
  const bodies = { json: ['application/json', JSON.stringify(benchDeck())], markdown: ['text/markdown', exported.body] } as const;
  const samples = { json: [] as number[], markdown: [] as number[] };
  for (let i = 0; i < 10 + IMPORTS; i++) {
    for (const format of ['json', 'markdown'] as const) {
      const [type, body] = bodies[format];
      const res = await timedRequest(`${t.url}/api/v1/decks/import`, { method: 'POST', headers: { ...auth(t), 'content-type': type }, body });
      if (res.status !== 201) throw new Error(`import (${format}) on ${t.name} failed: ${res.status} ${res.body.slice(0, 200)}`);
      if (i >= 10) samples[format].push(res.ms);
    }
  }
  const stats = (v: number[]) => ({ p50Ms: round(percentile(v, 50)), p99Ms: round(percentile(v, 99)) });
  return { json: stats(samples.json), markdown: stats(samples.markdown) };
}

/** Rows and bytes (tables with their indexes) per row, from the schema the run filled. */
async function storageFigures(databaseUrl: string, schema: string): Promise<Record<string, { rows: number; bytesPerRow: number }>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: Record<string, { rows: number; bytesPerRow: number }> = {};
    for (const table of ['decks', 'cards', 'activity']) {
      const name = `${pg.escapeIdentifier(schema)}.${pg.escapeIdentifier(table)}`;
      await client.query(`analyze ${name}`);
      const { rows } = await client.query<{ n: string; bytes: string }>(`select count(*) as n, pg_total_relation_size('${name}') as bytes from ${name}`);
      const n = Number(rows[0]?.n ?? 0);
      out[table] = { rows: n, bytesPerRow: n === 0 ? 0 : Math.round(Number(rows[0]?.bytes ?? 0) / n) };
    }
    return out;
  } finally {
    await client.end();
  }
}

async function cleanUp(databaseUrl: string, redisUrl: string, schema: string, tokenIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`).finally(() => client.end());
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => {});
  try {
    await redis.connect();
    for (const id of tokenIds) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `flashdeck:rl:tok:*:${id}:*`, 'COUNT', 1000);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    }
  } finally {
    redis.disconnect();
  }
}

export async function benchScale(): Promise<object> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  if (!databaseUrl || !redisUrl) {
    return { skipped: 'no PostgreSQL and Redis to use: set BENCH_DATABASE_URL and BENCH_REDIS_URL (or TEST_DATABASE_URL and TEST_REDIS_URL)' };
  }
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  // One PUBLIC_URL, as behind a proxy: both instances then answer with the same bytes.
  const pgEnv = { DATABASE_URL: withSchema(databaseUrl, schema), REDIS_URL: redisUrl, PUBLIC_URL: 'https://flashdeck.example' };
  log(`scale: SQLite, PostgreSQL + Redis (schema ${schema}), and a second PostgreSQL instance`);
  const started: { stop(): Promise<void> }[] = [];
  let tokenId: string | null = null;
  try {
    const [sqliteServer, pgServer] = await Promise.all([
      startBenchServer('scale-sqlite', { BENCH_ROLE: 'deck' }),
      startBenchServer('scale-pg', { BENCH_ROLE: 'deck', ...pgEnv }),
    ]);
    started.push(sqliteServer, pgServer);
    const second = await startPlainInstance(pgEnv, pgServer);
    started.push(second);
    const sqlite = asTarget(sqliteServer, 'sqlite');
    const pg1 = asTarget(pgServer, 'postgres-redis');
    const pg2 = second.target;
    const who = await timedRequest(`${pg1.url}/api/v1/whoami`, { headers: auth(pg1) });
    tokenId = (JSON.parse(who.body) as { token: { id: string } }).token.id;
    const same = await Promise.all([sqlite, pg1, pg2].map((t) => timedRequest(deckUrl(t), { headers: auth(t) })));
    if (same.some((r) => r.status !== 200) || same[1]?.body !== same[2]?.body) throw new Error('the instances do not serve the same deck');

    const sets = { sqlite: [sqlite], onePg: [pg1], twoPg: [pg1, pg2] };
    for (const targets of Object.values(sets)) await readThroughput(targets); // warm-up
    const reads: Record<keyof typeof sets, { reqPerSec: number; perInstance: number[]; cpuUsPerRequest: number }[]> = { sqlite: [], onePg: [], twoPg: [] };
    for (let r = 1; r <= ROUNDS; r++) {
      for (const name of Object.keys(sets) as (keyof typeof sets)[]) {
        const result = await readThroughput(sets[name]);
        reads[name].push(result);
        log(`  round ${r} GET deck ${name.padEnd(7)} ${Math.round(result.reqPerSec)} req/s`);
      }
    }
    const rps = (name: keyof typeof sets) => round(mean(reads[name].map((x) => x.reqPerSec)), 0);
    const cpuUs = (name: keyof typeof sets) => round(mean(reads[name].map((x) => x.cpuUsPerRequest)), 1);

    log(`  import latency: ${IMPORTS} JSON and ${IMPORTS} markdown imports each on SQLite and PostgreSQL`);
    const latency = { sqlite: await importLatency(sqlite), postgresRedis: await importLatency(pg1) };

    const body = JSON.stringify(benchDeck());
    const loads = { one: [] as number[], two: [] as number[] };
    for (let r = 1; r <= ROUNDS; r++) {
      loads.one.push(await importThroughput([pg1], body));
      loads.two.push(await importThroughput([pg1, pg2], body));
      log(`  round ${r} imports/s one ${Math.round(loads.one.at(-1) as number)}, two ${Math.round(loads.two.at(-1) as number)}`);
    }
    const ratio = rps('onePg') / rps('sqlite');
    // Activity is written in batches a moment after each call.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const storage = await storageFigures(databaseUrl, schema);
    return {
      deckRead: {
        connections: CONNECTIONS,
        secondsPerRun: SECONDS,
        sqliteReqPerSec: rps('sqlite'),
        postgresRedisReqPerSec: rps('onePg'),
        postgresOverSqlite: round(ratio, 3),
        goal: { postgresOverSqlite: '>= 0.6', met: ratio >= 0.6 },
        serverCpuUsPerRequest: { sqlite: cpuUs('sqlite'), postgresRedis: cpuUs('onePg'), twoInstances: cpuUs('twoPg') },
        twoInstancesReqPerSec: rps('twoPg'),
        twoInstancesPerInstance: reads.twoPg.at(-1)?.perInstance,
        twoOverOne: round(rps('twoPg') / rps('onePg'), 3),
      },
      importLatency: { requests: IMPORTS, ...latency },
      importThroughput: {
        concurrentClients: 4,
        oneInstancePerSec: round(mean(loads.one), 1),
        twoInstancesPerSec: round(mean(loads.two), 1),
        twoOverOne: round(mean(loads.two) / mean(loads.one), 3),
      },
      postgresStorage: storage,
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    await cleanUp(databaseUrl, redisUrl, schema, tokenId ? [tokenId] : []).catch((error: unknown) => log(`scale: clean-up failed: ${String(error)}`));
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  benchScale().then((figures) => process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`), (error: unknown) => {
    process.stderr.write(`bench scale failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
