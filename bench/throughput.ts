// Throughput comparisons in interleaved rounds: subject, reference, subject, reference, ... so
// drift in the machine's load hits both alike. Every run is wrk against a real port; beside req/s
// each side reports its server process's CPU per request and RSS, read from /proc.
import os from 'node:os';
import { median, round } from './measure.ts';
import { MB } from './proc.ts';
import type { Measured } from './servers.ts';
import { runWrk, type WrkResult } from './wrk.ts';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
export const THREADS = Number(process.env.BENCH_WRK_THREADS ?? 1);

const log = (line: string) => process.stderr.write(`${line}\n`);

export interface Target {
  label: string;
  url: string;
  headers?: Record<string, string>;
  /** The server process(es) answering it, whose CPU and RSS are read. */
  servers: Measured[];
  /** A request other than GET (an MCP tool call): method, body and content type. */
  request?: { method: string; body: string; contentType: string };
}

export interface RunFigures {
  reqPerSec: number;
  requests: number;
  /** Server CPU µs per request (all of the target's server processes together). */
  cpuUsPerRequest: number;
  /** RSS right after the run, MB (the largest of the target's server processes). */
  rssMB: number;
  /** wrk's own CPU µs per request. */
  wrkCpuUsPerRequest: number;
  latencyMs: { p50: number; p90: number; p99: number };
}

export interface Comparison {
  subject: string;
  reference: string;
  connections: number;
  wrkThreads: number;
  secondsPerRun: number;
  rounds: { subject: RunFigures; reference: RunFigures; ratio: number; cpuRatio: number; loadAverage: number }[];
  /** Medians over the rounds (RSS: after the last round). */
  median: {
    subject: { reqPerSec: number; cpuUsPerRequest: number; rssMB: number; wrkCpuUsPerRequest: number; p50Ms: number; p99Ms: number };
    reference: { reqPerSec: number; cpuUsPerRequest: number; rssMB: number; wrkCpuUsPerRequest: number; p50Ms: number; p99Ms: number };
    /** Median of the rounds' subject / reference req/s (each round against its own reference run). */
    ratio: number;
    /** Median of the rounds' subject / reference CPU per request. */
    cpuRatio: number;
  };
}

function figures(result: WrkResult): RunFigures {
  return {
    reqPerSec: round(result.reqPerSec, 0),
    requests: result.requests,
    cpuUsPerRequest: round(result.serverCpuUs.reduce((a, b) => a + b, 0), 1),
    rssMB: round(Math.max(...result.serverRss) / MB, 1),
    wrkCpuUsPerRequest: round(result.clientCpuUs, 1),
    latencyMs: { p50: round(result.latencyMs.p50, 3), p90: round(result.latencyMs.p90, 3), p99: round(result.latencyMs.p99, 3) },
  };
}

/** One wrk run per server of the target at once (connections split between them). */
export async function measureTarget(targets: Target | Target[], seconds = SECONDS, connections = CONNECTIONS): Promise<RunFigures> {
  const list = Array.isArray(targets) ? targets : [targets];
  const per = Math.max(1, Math.round(connections / list.length));
  const results = await Promise.all(list.map((t) => runWrk({
    url: t.url, headers: t.headers, request: t.request, seconds, connections: per, threads: THREADS, watch: t.servers.map((s) => s.pid),
  })));
  const failed = results.reduce((n, r) => n + r.failed, 0);
  if (failed > 0) throw new Error(`${list.map((t) => t.label).join(' + ')}: ${failed} failed requests`);
  if (results.length === 1) return figures(results[0]);
  // Several instances: req/s add up; CPU per request is all their CPU over all requests.
  const requests = results.reduce((n, r) => n + r.requests, 0);
  const cpuSeconds = results.reduce((s, r) => s + r.serverCpuUs.reduce((a, b) => a + b, 0) * r.requests / 1e6, 0);
  const clientSeconds = results.reduce((s, r) => s + r.clientCpuUs * r.requests / 1e6, 0);
  return {
    reqPerSec: round(results.reduce((s, r) => s + r.reqPerSec, 0), 0),
    requests,
    cpuUsPerRequest: round((cpuSeconds / requests) * 1e6, 1),
    rssMB: round(Math.max(...results.flatMap((r) => r.serverRss)) / MB, 1),
    wrkCpuUsPerRequest: round((clientSeconds / requests) * 1e6, 1),
    latencyMs: figures(results[0]).latencyMs,
  };
}

/** Interleaved rounds of subject and reference after a warm-up run of each. */
export async function compare(name: string, subject: Target | Target[], reference: Target | Target[]): Promise<Comparison> {
  const label = (t: Target | Target[]) => (Array.isArray(t) ? t.map((x) => x.label).join(' + ') : t.label);
  log(`${name}: ${label(subject)} against ${label(reference)}; ${WARMUP_SECONDS} s warm-up each, then ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, wrk -t${THREADS}`);
  if (WARMUP_SECONDS > 0) {
    await measureTarget(subject, WARMUP_SECONDS);
    await measureTarget(reference, WARMUP_SECONDS);
  }
  const rounds: Comparison['rounds'] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const s = await measureTarget(subject);
    const ref = await measureTarget(reference);
    const entry = {
      subject: s, reference: ref, ratio: round(s.reqPerSec / ref.reqPerSec, 3),
      cpuRatio: round(s.cpuUsPerRequest / ref.cpuUsPerRequest, 3), loadAverage: round(os.loadavg()[0] ?? 0),
    };
    rounds.push(entry);
    log(`  round ${r}: ${label(subject)} ${s.reqPerSec} req/s ${s.cpuUsPerRequest} µs ${s.rssMB} MB | ${label(reference)} ${ref.reqPerSec} req/s ${ref.cpuUsPerRequest} µs ${ref.rssMB} MB | ratio ${entry.ratio} (load ${entry.loadAverage})`);
  }
  const side = (pick: (r: Comparison['rounds'][number]) => RunFigures) => ({
    reqPerSec: round(median(rounds.map((r) => pick(r).reqPerSec)), 0),
    cpuUsPerRequest: round(median(rounds.map((r) => pick(r).cpuUsPerRequest)), 1),
    rssMB: pick(rounds.at(-1) as Comparison['rounds'][number]).rssMB,
    wrkCpuUsPerRequest: round(median(rounds.map((r) => pick(r).wrkCpuUsPerRequest)), 1),
    p50Ms: round(median(rounds.map((r) => pick(r).latencyMs.p50)), 3),
    p99Ms: round(median(rounds.map((r) => pick(r).latencyMs.p99)), 3),
  });
  return {
    subject: label(subject),
    reference: label(reference),
    connections: CONNECTIONS,
    wrkThreads: THREADS,
    secondsPerRun: SECONDS,
    rounds,
    median: {
      subject: side((r) => r.subject),
      reference: side((r) => r.reference),
      ratio: round(median(rounds.map((r) => r.ratio)), 3),
      cpuRatio: round(median(rounds.map((r) => r.cpuRatio)), 3),
    },
  };
}
