// The scale-out figures (issue 4) on PostgreSQL + Redis, in a fresh schema and Redis namespace of
// their own (dropped after), with throughput from wrk:
// - GET /decks/{deckId} on two instances of one deployment (one wrk per instance, the connections
//   split) against one instance, interleaved rounds;
// - POST /decks/import of the 250 cards, JSON and markdown, one at a time: PostgreSQL + Redis
//   beside SQLite (bench/imports.ts);
// - imports per second with 4 concurrent connections, one instance and two, interleaved;
// - PostgreSQL bytes per deck, card and activity row (with indexes), for capacity estimates.
// On a two-core machine the two-instance figures are bounded by the cores (servers, PostgreSQL,
// Redis and wrk share them), so they are reported and explained (docs/deployment.md), not tuned for.
// The PostgreSQL / SQLite read ratio is the `postgres` part (bench/reads.ts).
import pg from 'pg';
import { importBodies, importLatency, type ImportFigures } from './imports.ts';
import { round } from './measure.ts';
import { API, startDeckServer, type DeckServer } from './reads.ts';
import { postgresRedisStore, startFlashdeck } from './servers.ts';
import { compare, ROUNDS, SECONDS, THREADS, type Comparison } from './throughput.ts';
import { runWrk } from './wrk.ts';

const IMPORT_CONNECTIONS = 4;

const log = (line: string) => process.stderr.write(`${line}\n`);

export interface ScaleFigures {
  twoInstancesReads: Comparison;
  importLatency: { sqlite: ImportFigures; postgresRedis: ImportFigures };
  importThroughput: { connections: number; rounds: { one: number; two: number }[]; oneInstancePerSec: number; twoInstancesPerSec: number; twoOverOne: number };
  postgresStorage: Record<string, { rows: number; bytesPerRow: number }>;
}

/** Rows and bytes (tables with their indexes) per row, from the schema the run filled. */
async function storageFigures(databaseUrl: string, schema: string): Promise<ScaleFigures['postgresStorage']> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const out: ScaleFigures['postgresStorage'] = {};
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

async function importsPerSecond(instances: DeckServer[], body: string): Promise<number> {
  const per = Math.max(1, Math.round(IMPORT_CONNECTIONS / instances.length));
  const results = await Promise.all(instances.map((d) => runWrk({
    url: `${d.server.url}${API}/decks/import`, headers: d.auth, seconds: SECONDS, connections: per, threads: THREADS,
    request: { method: 'POST', body, contentType: 'application/json' },
  })));
  const failed = results.reduce((n, r) => n + r.failed, 0);
  if (failed > 0) throw new Error(`import load on ${instances.length} instance(s): ${failed} failed requests`);
  return results.reduce((s, r) => s + r.reqPerSec, 0);
}

export async function benchScale(urls: { databaseUrl: string; redisUrl: string }, sqlite: DeckServer): Promise<ScaleFigures> {
  const backing = postgresRedisStore(urls);
  log(`scale: two PostgreSQL + Redis instances (schema ${backing.schema}) against one`);
  // One PUBLIC_URL, as behind a proxy: both instances then answer with the same bytes.
  const env = { PUBLIC_URL: 'https://flashdeck.example' };
  const stops: (() => Promise<void>)[] = [];
  try {
    const first = await startDeckServer('scale-pg-1', backing.store, { env });
    stops.push(() => first.server.stop());
    const secondServer = await startFlashdeck('scale-pg-2', backing.store, { env });
    stops.push(() => secondServer.stop());
    const second: DeckServer = { ...first, server: secondServer };
    const [a, b] = await Promise.all([first, second].map((d) => fetch(`${d.server.url}${d.deckPath}`, { headers: d.auth }).then(async (r) => [r.status, await r.text()] as const)));
    if (a?.[0] !== 200 || a[1] !== b?.[1]) throw new Error('the two instances do not serve the same deck');

    const target = (d: DeckServer, label: string) => ({ label, url: `${d.server.url}${d.deckPath}`, headers: d.auth, servers: [d.server] });
    const twoInstancesReads = await compare('scale reads', [target(first, 'instance 1'), target(second, 'instance 2')], target(first, 'one instance'));

    log('scale: import latency, SQLite then PostgreSQL + Redis');
    const latency = { sqlite: await importLatency(sqlite), postgresRedis: await importLatency(first) };

    const body = (await importBodies(first)).json.body;
    const rounds: { one: number; two: number }[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const one = round(await importsPerSecond([first], body), 1);
      const two = round(await importsPerSecond([first, second], body), 1);
      rounds.push({ one, two });
      log(`  round ${r}: imports/s one instance ${one}, two ${two}`);
    }
    const mean = (values: number[]) => values.reduce((x, y) => x + y, 0) / values.length;
    const one = mean(rounds.map((r) => r.one));
    const two = mean(rounds.map((r) => r.two));
    // Activity is written in batches a moment after each call.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return {
      twoInstancesReads,
      importLatency: latency,
      importThroughput: {
        connections: IMPORT_CONNECTIONS, rounds, oneInstancePerSec: round(one, 1), twoInstancesPerSec: round(two, 1), twoOverOne: round(two / one, 3),
      },
      postgresStorage: await storageFigures(urls.databaseUrl, backing.schema),
    };
  } finally {
    for (const stop of stops.reverse()) await stop();
    await backing.drop().catch((error: unknown) => log(`scale: clean-up failed: ${String(error)}`));
  }
}
