// GET /reviews/due for a user with 100 decks of 250 cards (issue 21: p50 under 10 ms), on SQLite
// and, when BENCH_DATABASE_URL/BENCH_REDIS_URL (or TEST_*) are set, on PostgreSQL + Redis. The
// server runs in its own process; the decks are imported over HTTP, half of each deck's cards get
// a schedule straight in the store (bench/seed-due.ts); then one keep-alive client asks 50 times to
// warm up and 500 times measured, one request at a time.
//
//   node bench/due.ts
import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { cliUser, postgresRedisStore, postgresRedisUrls, startFlashdeck, type Flashdeck, type StoreChoice } from './servers.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DECKS = 100;
const CARDS = 250;
const WARMUP = 50;
const SAMPLES = 500;

function request(agent: http.Agent, url: URL, token: string, method: string, body?: unknown): Promise<{ status: number; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request({
      agent, method, host: url.hostname, port: url.port, path: url.pathname + url.search,
      headers: { authorization: `Bearer ${token}`, ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

function seed(server: Flashdeck, userId: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench/seed-due.ts'), userId], {
      cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...server.storeEnv }, stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`seed-due exited ${code}`))));
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
const round2 = (n: number) => Math.round(n * 100) / 100;

async function measure(name: string, store: StoreChoice): Promise<Record<string, unknown>> {
  const server = await startFlashdeck(`due-${name}`, store, { entry: 'src/server.ts' });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const { userId, token } = await cliUser(server, `due-${name}@example.com`);
    const api = (p: string) => new URL(`${server.url}/api/v1${p}`);
    const cards = Array.from({ length: CARDS }, (_, i) => ({ front: `Question ${i}`, back: `Answer ${i}` }));
    for (let d = 0; d < DECKS; d++) {
      const res = await request(agent, api('/decks/import'), token, 'POST', { deck: { title: `Deck ${d}` }, cards });
      if (res.status !== 201) throw new Error(`import: ${res.status} ${res.text.slice(0, 200)}`);
    }
    await seed(server, userId);
    const times: number[] = [];
    let last = '';
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const started = performance.now();
      const res = await request(agent, api('/reviews/due'), token, 'GET');
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`due: ${res.status} ${res.text.slice(0, 200)}`);
      if (i >= WARMUP) times.push(ms);
      last = res.text;
    }
    times.sort((a, b) => a - b);
    const body = JSON.parse(last) as { decks: unknown[]; total: { due: number; new: number } };
    return { store: name, decks: body.decks.length, total: body.total, p50Ms: round2(percentile(times, 50)), p99Ms: round2(percentile(times, 99)) };
  } finally {
    agent.destroy();
    await server.stop();
  }
}

const results = [await measure('sqlite', { kind: 'sqlite' })];
const urls = postgresRedisUrls();
if (urls !== null) {
  const pg = postgresRedisStore(urls);
  try {
    results.push(await measure('postgres-redis', pg.store));
  } finally {
    await pg.drop();
  }
}
process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
