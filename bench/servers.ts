// The processes a bench run measures, each on its own real port: Flashdeck servers (src/server.ts,
// the entry an operator runs, on a temporary SQLite data directory; or bench/server.ts on
// PostgreSQL + Redis, which only adds a Redis key namespace), users and tokens made with the
// `flashdeck` CLI, and the bare node:http ceiling (bench/ceiling.ts).
import { randomBytes } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import type { CapturedResponse, CeilingInput } from './ceiling.ts';
import { cpuSeconds, rssBytes } from './proc.ts';
import { freePort } from '../test/helpers/process.ts';

export const ROOT = path.resolve(import.meta.dirname, '..');

// npm run puts the project's Node 24 (the `node` devDependency) first on PATH; children run on the
// same binary, so type stripping works whatever the machine's own node is.
if (Number(process.versions.node.split('.')[0]) < 24) {
  throw new Error(`the bench needs the project's Node 24 (npm run bench, or npx node bench/run.ts); this is ${process.version}`);
}
export const NODE = process.execPath;

/**
 * The Node flags and entry of `npm start` (package.json's start script, `exec node <flags> <entry>`):
 * the bench runs the server as an operator does, V8's memory settings and the compiled build
 * included (docs/performance.md).
 */
const START_WORDS: string[] = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const words = (pkg.scripts?.start ?? '').split(/\s+/).filter((w) => w !== '');
  const node = words.indexOf('node');
  return node < 0 ? [] : words.slice(node + 1);
})();
export const START_FLAGS: string[] = START_WORDS.filter((w) => w.startsWith('--'));
/** The variables the start script sets for the server (glibc's MALLOC_* settings). */
export const START_ENV: Record<string, string> = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts?: { start?: string } };
  const env: Record<string, string> = {};
  for (const word of (pkg.scripts?.start ?? '').split(/\s+/)) {
    const assignment = /^([A-Z_][A-Z0-9_]*)=(\S*)$/.exec(word);
    if (assignment === null) break;
    env[assignment[1] ?? ''] = assignment[2] ?? '';
  }
  return env;
})();
/** `dist/server.js` (built by `npm run build`, which the bench runs when src/ is newer). */
export const START_ENTRY: string = START_WORDS.find((w) => !w.startsWith('--')) ?? 'src/server.ts';

/** Builds dist/ when the start script runs it and src/ changed since (the build's own check). */
export function buildIfStale(): void {
  if (!START_ENTRY.startsWith('dist/')) return;
  const built = spawnSync(NODE, [path.join(ROOT, 'scripts', 'build.ts'), '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  if (built.status !== 0) throw new Error('the build of dist/ failed');
}

const log = (line: string) => process.stderr.write(`${line}\n`);


/** A measured child process: its pid for /proc, and how to stop it. */
export interface Measured {
  name: string;
  pid: number;
  url: string;
  cpuSeconds(): number;
  rssBytes(): number;
  stop(): Promise<void>;
}

function stopper(child: ChildProcess, name: string, cleanUp: () => Promise<void> | void): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  return () => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      const timer = setTimeout(() => {
        log(`${name}: still running 15 s after SIGTERM; killing it`);
        child.kill('SIGKILL');
      }, 15_000);
      await exited;
      clearTimeout(timer);
      await cleanUp();
    })();
    return stopping;
  };
}

function measured(child: ChildProcess, name: string, url: string, stop: () => Promise<void>): Measured {
  const pid = child.pid as number;
  return { name, pid, url, cpuSeconds: () => cpuSeconds(pid), rssBytes: () => rssBytes(pid), stop };
}

/** Where a Flashdeck server keeps its data. */
export type StoreChoice =
  | { kind: 'sqlite' }
  | { kind: 'postgres-redis'; databaseUrl: string; redisUrl: string; namespace: string };

export interface Flashdeck extends Measured {
  store: StoreChoice['kind'];
  /** The store variables (DATA_DIR, DATABASE_URL, REDIS_URL) the CLI needs to reach the same store. */
  storeEnv: Record<string, string>;
}

export interface FlashdeckOptions {
  /** A data directory to share (a second instance); a fresh temporary one otherwise. */
  dataDir?: string;
  env?: Record<string, string>;
  /** Node flags for the server process (profiling). */
  nodeFlags?: string[];
  /** The server's entry on SQLite (default: the start script's). */
  entry?: string;
}

/**
 * Starts a Flashdeck server process and waits for GET /healthz. Rate limits are raised so they
 * count every call without refusing any, and DECK_LIMIT=none lets imports create decks freely.
 * BENCH_CPU_PROF=1 makes it write a V8 CPU profile to bench/results/profiles when it stops.
 */
export async function startFlashdeck(name: string, store: StoreChoice, options: FlashdeckOptions = {}): Promise<Flashdeck> {
  const ownDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), `flashdeck-bench-${name}-`));
  const storeEnv: Record<string, string> = { DATA_DIR: dataDir };
  if (store.kind === 'postgres-redis') Object.assign(storeEnv, { DATABASE_URL: store.databaseUrl, REDIS_URL: store.redisUrl });
  const port = await freePort();
  const profile = process.env.BENCH_CPU_PROF === '1'
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench/results/profiles')}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`]
    : [];
  const extraFlags = (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');
  if (options.entry === undefined && store.kind === 'sqlite') buildIfStale();
  const entry = store.kind === 'sqlite' ? options.entry ?? START_ENTRY : 'bench/server.ts';
  const child = spawn(NODE, [...START_FLAGS, ...profile, ...extraFlags, ...(options.nodeFlags ?? []), path.join(ROOT, entry)], {
    cwd: ROOT,
    env: {
      ...START_ENV,
      ...process.env,
      PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', DECK_LIMIT: 'none',
      RATE_LIMIT_PER_MINUTE: '1000000000', RATE_LIMIT_PER_DAY: '1000000000',
      ...storeEnv,
      ...(store.kind === 'postgres-redis' ? { BENCH_REDIS_NAMESPACE: store.namespace } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = (chunk: Buffer) => chunk.toString().split('\n').filter((l) => l.trim() !== '').map((l) => `[${name}] ${l}\n`).join('');
  child.stdout?.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(prefix(chunk)));
  const stop = stopper(child, name, () => {
    if (ownDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then((r) => r.status === 200, () => false);
    if (ok) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${name}: the server did not become ready (exit code ${child.exitCode})`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { ...measured(child, name, url, stop), store: store.kind, storeEnv };
}

/** `flashdeck ARGS` (bin/flashdeck.js, what `npx flashdeck` runs) on a server's store; its stdout. */
export async function cli(server: Flashdeck, args: string[]): Promise<string> {
  const child = spawn(NODE, [path.join(ROOT, 'bin/flashdeck.js'), ...args], {
    cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...server.storeEnv }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  child.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`flashdeck ${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  return stdout.trim();
}

export const ALL_SCOPES = 'decks:read,decks:write,reviews:read,reviews:write';

/** A user and a personal access token, made with the CLI. */
export async function cliUser(server: Flashdeck, email: string): Promise<{ userId: string; token: string }> {
  const userId = await cli(server, ['users', 'add', email]);
  const token = await cli(server, ['tokens', 'create', '--user', email, '--name', 'bench', '--scopes', ALL_SCOPES]);
  return { userId, token };
}

export interface Captured {
  status: number;
  rawHeaders: string[];
  body: Buffer;
}

/** One request over a fresh connection, keeping the response's raw headers and bytes. */
export function capture(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

// Written per response by Node's http module or set per connection; the ceiling's own server adds
// the same ones.
const PER_CONNECTION = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding']);

export function headerValue(rawHeaders: string[], name: string): string | undefined {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if ((rawHeaders[i]).toLowerCase() === name) return rawHeaders[i + 1];
  }
  return undefined;
}

/** Serialised size of a response's head as received (status line aside). */
export function headBytes(rawHeaders: string[]): number {
  let n = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) n += Buffer.byteLength(`${rawHeaders[i]}: ${rawHeaders[i + 1]}\r\n`);
  return n;
}

export interface Ceiling extends Measured {
  /** The ceiling's answer for a path, to compare with Flashdeck's. */
  check(pathname: string, real: Captured): Promise<void>;
}

/** Starts bench/ceiling.ts answering each path with the captured response's status, headers and bytes. */
export async function startCeiling(responses: Record<string, Captured>, nodeFlags: string[] = []): Promise<Ceiling> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-ceiling-'));
  const file = path.join(dir, 'responses.json');
  const any = Object.values(responses)[0];
  const keepAlive = any === undefined ? undefined : headerValue(any.rawHeaders, 'keep-alive');
  const input: CeilingInput = {
    keepAliveSeconds: keepAlive === undefined ? null : Number(/timeout=(\d+)/.exec(keepAlive)?.[1] ?? 5),
    responses: Object.fromEntries(Object.entries(responses).map(([url, r]): [string, CapturedResponse] => {
      const rawHeaders: string[] = [];
      for (let i = 0; i < r.rawHeaders.length; i += 2) {
        if (!PER_CONNECTION.has((r.rawHeaders[i]).toLowerCase())) rawHeaders.push(r.rawHeaders[i], r.rawHeaders[i + 1]);
      }
      return [url, { status: r.status, rawHeaders, bodyBase64: r.body.toString('base64') }];
    })),
  };
  fs.writeFileSync(file, JSON.stringify(input));
  const child = spawn(NODE, [...nodeFlags, path.join(ROOT, 'bench/ceiling.ts'), file], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = stopper(child, 'ceiling', () => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    child.once('exit', (code) => reject(new Error(`ceiling exited with ${code} before it was ready`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const match = /^CEILING_READY (.*)$/m.exec(buffered);
      if (match !== null) resolve((JSON.parse(match[1]) as { port: number }).port);
    });
  }).catch(async (error: unknown) => {
    await stop();
    throw error;
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    ...measured(child, 'ceiling', url, stop),
    async check(pathname, real) {
      const got = await capture(`${url}${pathname}`);
      const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase()).sort().join(',');
      if (got.status !== real.status || !got.body.equals(real.body) || names(got.rawHeaders) !== names(real.rawHeaders)) {
        throw new Error(`the ceiling's ${pathname} is not Flashdeck's response (status ${got.status}, ${got.body.length} bytes, headers ${names(got.rawHeaders)})`);
      }
    },
  };
}

/** A PostgreSQL schema and a Redis key namespace of one bench run, and how to drop them. */
export interface PostgresRedis {
  store: Extract<StoreChoice, { kind: 'postgres-redis' }>;
  schema: string;
  drop(): Promise<void>;
}

/** BENCH_DATABASE_URL / BENCH_REDIS_URL, else TEST_DATABASE_URL / TEST_REDIS_URL; null without both. */
export function postgresRedisUrls(): { databaseUrl: string; redisUrl: string } | null {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.TEST_REDIS_URL;
  return databaseUrl && redisUrl ? { databaseUrl, redisUrl } : null;
}

/**
 * A fresh schema (the server creates it when it migrates: DATABASE_URL carries its search_path,
 * as an operator's would) and namespace; drop() removes both.
 */
export function postgresRedisStore(urls: { databaseUrl: string; redisUrl: string }): PostgresRedis {
  const id = randomBytes(4).toString('hex');
  const schema = `bench_${id}`;
  const namespace = `flashdeck-bench:${id}:`;
  const databaseUrl = new URL(urls.databaseUrl);
  databaseUrl.searchParams.set('options', `-c search_path=${schema}`);
  return {
    store: { kind: 'postgres-redis', databaseUrl: databaseUrl.toString(), redisUrl: urls.redisUrl, namespace },
    schema,
    async drop() {
      const client = new pg.Client({ connectionString: urls.databaseUrl });
      await client.connect();
      await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`).finally(() => client.end());
      const redis = new Redis(urls.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, disableClientInfo: true });
      redis.on('error', () => {});
      try {
        await redis.connect();
        let cursor = '0';
        do {
          const [next, keys] = await redis.scan(cursor, 'MATCH', `${namespace}*`, 'COUNT', 1000);
          if (keys.length > 0) await redis.del(...keys);
          cursor = next;
        } while (cursor !== '0');
      } finally {
        redis.disconnect();
      }
    },
  };
}
