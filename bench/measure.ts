// Measuring tools for bench/run.ts: the server child processes, a keep-alive HTTP client that
// times one request at a time, percentiles, and an autocannon wrapper for throughput.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchServer {
  name: string;
  url: string;
  token: string;
  deckId?: string;
  dataDir: string;
  /** CPU seconds (user + system) the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

// Linux: utime and stime, fields 14 and 15 of /proc/PID/stat, in clock ticks (USER_HZ, 100).
function processCpuSeconds(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Starts bench/server.ts on a fresh temp store with the bench's operator settings. */
export function startBenchServer(name: string, env: Record<string, string>): Promise<BenchServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `flashdeck-bench-${name}-`));
  // BENCH_CPU_PROF=1: each server writes a V8 CPU profile to bench/results/profiles when it stops.
  const profile = process.env.BENCH_CPU_PROF === '1'
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(ROOT, 'bench/results/profiles')}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`]
    : [];
  // process.execPath is the project's Node 24 (npm run puts node_modules/.bin first).
  const child: ChildProcess = spawn(process.execPath, [...profile, path.join(ROOT, 'bench/server.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', DECK_LIMIT: 'none',
      RATE_LIMIT_PER_MINUTE: '1000000000', RATE_LIMIT_PER_DAY: '1000000000', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk.toString()}`));
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => reject(new Error(`${name}: not ready after 180 s`)), 180_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name}: server exited with ${code} before it was ready`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        if (line.startsWith('BENCH_READY ')) {
          clearTimeout(timer);
          const ready = JSON.parse(line.slice('BENCH_READY '.length)) as { port: number; token: string; deckId?: string };
          resolve({
            name, url: `http://127.0.0.1:${ready.port}`, token: ready.token, deckId: ready.deckId, dataDir, stop,
            cpuSeconds: () => processCpuSeconds(child.pid as number),
          });
        } else if (line.trim() !== '') {
          process.stderr.write(`[${name}] ${line}\n`);
        }
      }
    });
  });
}

export interface Timed {
  status: number;
  ms: number;
  body: string;
  headers: http.IncomingHttpHeaders;
}

// One socket, kept alive: the figures are the server's latency for a single client stream.
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export function timedRequest(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Timed> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: options.method ?? 'GET', headers: options.headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({
        status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers,
      }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export interface Throughput {
  reqPerSec: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  bytesPerSec: number;
}

export async function cannon(url: string, headers: Record<string, string>, seconds: number, connections: number): Promise<Throughput> {
  const result = await autocannon({ url, headers, duration: seconds, connections, pipelining: 1 });
  return {
    reqPerSec: result.requests.average,
    requests: result.requests.total,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    bytesPerSec: result.throughput.average,
  };
}
