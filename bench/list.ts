// GET /decks?limit=25 latency at depth: a store of 100 decks against one of BENCH_LARGE_STORE
// (100,000), and page BENCH_DEEP_PAGES + 1 of the large one (following nextToken there), one
// request at a time. The decks are bulk-seeded by bench/seed-list.ts (users and tokens by the CLI).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { percentile, round, timedRequest } from './measure.ts';
import { API } from './reads.ts';
import { cliUser, NODE, ROOT, startFlashdeck, type Flashdeck } from './servers.ts';

const LIST_REQUESTS = Number(process.env.BENCH_LIST_REQUESTS ?? 300);
const DEEP_PAGES = Number(process.env.BENCH_DEEP_PAGES ?? 400);
export const LARGE_STORE = Number(process.env.BENCH_LARGE_STORE ?? 100_000);

const log = (line: string) => process.stderr.write(`${line}\n`);

interface ListServer {
  server: Flashdeck;
  auth: Record<string, string>;
}

async function startListServer(name: string, decks: number): Promise<ListServer> {
  const server = await startFlashdeck(name, { kind: 'sqlite' });
  try {
    const { userId, token } = await cliUser(server, `${name}@bench.example`);
    const child = spawn(NODE, [path.join(ROOT, 'bench/seed-list.ts'), userId, String(decks)], {
      cwd: ROOT, env: { ...process.env, ...server.storeEnv }, stdio: ['ignore', 'inherit', 'inherit'],
    });
    const code = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', resolve);
    });
    if (code !== 0) throw new Error(`${name}: seeding ${decks} decks failed (${code})`);
    return { server, auth: { authorization: `Bearer ${token}` } };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export interface ListFigures {
  requests: number;
  smallStoreDecks: number;
  largeStoreDecks: number;
  small: { p50Ms: number; p99Ms: number };
  large: { p50Ms: number; p99Ms: number };
  deep: { page: number; p50Ms: number; p99Ms: number };
  largeOverSmall: number;
  deepOverSmall: number;
  followPagesP50Ms: number;
}

export async function listLatency(): Promise<ListFigures> {
  log(`list: seeding 100 and ${LARGE_STORE} decks into two stores`);
  const started = await Promise.allSettled([startListServer('list100', 100), startListServer('list100k', LARGE_STORE)]);
  const servers = started.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  try {
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    const [small, large] = servers as [ListServer, ListServer];
    const first = (s: ListServer) => `${s.server.url}${API}/decks?limit=25`;
    // Follow nextToken DEEP_PAGES pages into the large store, then time that page like the others.
    let token: string | null = null;
    const followed: number[] = [];
    for (let page = 0; page < DEEP_PAGES; page++) {
      const url: string = token === null ? first(large) : `${first(large)}&token=${encodeURIComponent(token)}`;
      const res = await timedRequest(url, { headers: large.auth });
      if (res.status !== 200) throw new Error(`list page ${page} failed: ${res.status}`);
      followed.push(res.ms);
      token = (JSON.parse(res.body) as { nextToken: string | null }).nextToken;
      if (token === null) throw new Error(`the large store ended after ${page + 1} pages`);
    }
    const deep = `${first(large)}&token=${encodeURIComponent(token as string)}`;
    const targets = { small: { s: small, url: first(small) }, large: { s: large, url: first(large) }, deep: { s: large, url: deep } };
    const samples: Record<keyof typeof targets, number[]> = { small: [], large: [], deep: [] };
    log(`list: ${LIST_REQUESTS} timed requests x 3 rounds per target, interleaved`);
    // The order turns every round: whichever target comes first after a switch measured slower.
    const orders: (keyof typeof targets)[][] = [['small', 'large', 'deep'], ['large', 'deep', 'small'], ['deep', 'small', 'large']];
    for (let roundNo = 0; roundNo < 4; roundNo++) {
      for (const name of orders[roundNo % orders.length]) {
        const { s, url } = targets[name];
        for (let i = 0; i < LIST_REQUESTS; i++) {
          const res = await timedRequest(url, { headers: s.auth });
          if (res.status !== 200) throw new Error(`list (${name}) failed: ${res.status}`);
          // Round 0 is the warm-up.
          if (roundNo > 0) samples[name].push(res.ms);
        }
      }
    }
    const p50 = (name: keyof typeof targets) => round(percentile(samples[name], 50), 3);
    const p99 = (name: keyof typeof targets) => round(percentile(samples[name], 99), 3);
    return {
      requests: LIST_REQUESTS * 3,
      smallStoreDecks: 100,
      largeStoreDecks: LARGE_STORE,
      small: { p50Ms: p50('small'), p99Ms: p99('small') },
      large: { p50Ms: p50('large'), p99Ms: p99('large') },
      deep: { page: DEEP_PAGES + 1, p50Ms: p50('deep'), p99Ms: p99('deep') },
      largeOverSmall: round(p50('large') / p50('small'), 3),
      deepOverSmall: round(p50('deep') / p50('small'), 3),
      followPagesP50Ms: round(percentile(followed, 50), 3),
    };
  } finally {
    await Promise.all(servers.map((s) => s.server.stop()));
  }
}
