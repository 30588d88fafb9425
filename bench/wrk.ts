// Throughput with wrk (C, epoll): a load generator that costs far less per request than the
// servers it measures, so the figures are the servers'. Each run also reads, from /proc, the CPU
// the watched server processes used during it and wrk's own CPU.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { childrenCpuSeconds, cpuSeconds, rssBytes } from './proc.ts';

export const WRK_INSTALL_HINT = 'wrk is not installed: apt-get install -y wrk';

let found: string | null | undefined;

/** The wrk executable on PATH, or null. */
export function findWrk(): string | null {
  if (found === undefined) {
    found = null;
    for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
      const candidate = path.join(dir, 'wrk');
      try {
        fs.accessSync(candidate, fs.constants.X_OK);
        found = candidate;
        break;
      } catch {
        // not here
      }
    }
  }
  return found;
}

export function wrkVersion(): string | null {
  const wrk = findWrk();
  if (wrk === null) return null;
  try {
    execFileSync(wrk, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // wrk --version prints its banner and exits 1.
    const out = String((error as { stdout?: string }).stdout ?? '');
    return /^wrk (\S+)/m.exec(out)?.[1] ?? 'unknown';
  }
  return 'unknown';
}

export interface WrkOptions {
  url: string;
  headers?: Record<string, string>;
  seconds: number;
  connections: number;
  threads: number;
  /** A request other than GET: its method, body and content type (a Lua script is written for it). */
  request?: { method: string; body: string; contentType: string };
  /** Server processes whose CPU and RSS are read around the run. */
  watch?: number[];
}

export interface WrkResult {
  requests: number;
  seconds: number;
  reqPerSec: number;
  latencyMs: { p50: number; p90: number; p99: number };
  /** Responses with a status of 400 or more, and socket errors (connect, read, write, timeout). */
  failed: number;
  bytesRead: number;
  /** CPU µs per request of each watched process (same order as `watch`). */
  serverCpuUs: number[];
  /** RSS of each watched process right after the run, bytes. */
  serverRss: number[];
  /** wrk's own CPU µs per request. */
  clientCpuUs: number;
}

function durationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|[smh])$/.exec(text);
  if (match === null) throw new Error(`wrk: unreadable duration "${text}"`);
  const value = Number(match[1]);
  return match[2] === 'us' ? value / 1000 : value * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 'ms'];
}

function bytes(text: string): number {
  const match = /^([\d.]+)([KMGT]?B)$/.exec(text);
  if (match === null) return Number.NaN;
  const unit = { B: 1, KB: 1024, MB: 1024 ** 2, GB: 1024 ** 3, TB: 1024 ** 4 }[match[2] as 'B'];
  return Number(match[1]) * unit;
}

/** Reads wrk's report (run with --latency). */
export function parseWrk(out: string): Omit<WrkResult, 'serverCpuUs' | 'serverRss' | 'clientCpuUs'> {
  const total = /^\s*(\d+) requests in ([\d.]+(?:[A-Z_a-z]\w*|\d)), ([\d.]+(?:[A-Z_a-z]\w*|\d)) read$/m.exec(out);
  const rate = /^Requests\/sec:\s+([\d.]+)$/m.exec(out);
  if (total === null || rate === null) throw new Error(`wrk: unreadable report:\n${out}`);
  const latency = (p: number) => {
    const match = new RegExp(`^\\s+${p}%\\s+(\\S+)$`, 'm').exec(out);
    return match === null ? Number.NaN : durationMs(match[1]);
  };
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((n, v) => n + Number(v), 0);
  return {
    requests: Number(total[1]),
    seconds: durationMs(total[2]) / 1000,
    reqPerSec: Number(rate[1]),
    latencyMs: { p50: latency(50), p90: latency(90), p99: latency(99) },
    failed: non2xx + socketErrors,
    bytesRead: bytes(total[3]),
  };
}

const luaString = (s: string) => `"${s.replace(/[\\"]/g, (c) => `\\${c}`).replace(/\n/g, '\\n')}"`;

function requestScript(request: NonNullable<WrkOptions['request']>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-wrk-'));
  const bodyFile = path.join(dir, 'body');
  fs.writeFileSync(bodyFile, request.body);
  const script = path.join(dir, 'request.lua');
  fs.writeFileSync(script, [
    `local f = assert(io.open(${luaString(bodyFile)}, "rb"))`,
    'wrk.body = f:read("*a")',
    'f:close()',
    `wrk.method = ${luaString(request.method)}`,
    `wrk.headers["Content-Type"] = ${luaString(request.contentType)}`,
    '',
  ].join('\n'));
  return script;
}

const STAT_MARK = 'WRK_PARENT_STAT ';

/** One wrk run. Throws when wrk is missing (WRK_INSTALL_HINT) or fails. */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  const wrk = findWrk();
  if (wrk === null) throw new Error(WRK_INSTALL_HINT);
  const args = ['-t', String(options.threads), '-c', String(options.connections), '-d', `${options.seconds}s`, '--latency'];
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}: ${value}`);
  const script = options.request ? requestScript(options.request) : null;
  if (script !== null) args.push('-s', script);
  args.push(options.url);
  const watch = options.watch ?? [];
  // wrk runs under a shell that prints its own stat line once wrk is reaped: cutime + cstime there
  // are wrk's CPU time (its /proc entry is gone by the time it could be read from here).
  const shell = `"$0" "$@"; status=$?; echo; echo "${STAT_MARK}$(cat /proc/$$/stat)"; exit $status`;
  const before = watch.map(cpuSeconds);
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn('sh', ['-c', shell, wrk, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
    child.once('error', reject);
    child.once('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`wrk exited with ${code}: ${stderr.trim() || stdout.trim()}`));
    });
  });
  const serverCpu = watch.map((pid, i) => cpuSeconds(pid) - (before[i]));
  const serverRss = watch.map(rssBytes);
  if (script !== null) fs.rmSync(path.dirname(script), { recursive: true, force: true });
  const parsed = parseWrk(out);
  const statLine = out.split('\n').find((line) => line.startsWith(STAT_MARK));
  const clientCpu = statLine === undefined ? Number.NaN : childrenCpuSeconds(statLine.slice(STAT_MARK.length));
  const perRequest = (seconds: number) => (parsed.requests === 0 ? Number.NaN : (seconds / parsed.requests) * 1e6);
  return { ...parsed, serverCpuUs: serverCpu.map(perRequest), serverRss, clientCpuUs: perRequest(clientCpu) };
}
