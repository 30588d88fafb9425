// Where a read's CPU goes: a Flashdeck server (SQLite, as in the bench) under wrk on one route,
// profiled with V8's sampling profiler (--cpu-prof), summarised per function and per package.
//
//   npx node bench/profile.ts deck|whoami|mcp|mcp-whoami [SECONDS]          (default 20)
//   npx node bench/profile.ts deck|whoami|mcp|mcp-whoami [SECONDS] --perf   (Linux perf: CPU time, kernel included)
//
// `mcp` is get_deck over MCP (the JSON-RPC POST bench/mcp.ts sends) on the same deck, `mcp-whoami`
// the whoami tool (an MCP call's fixed cost); with --perf their reference is the API route the tool
// stands for, on the same server, in place of the node:http ceiling.
//
// The server gets a 5 s wrk warm-up, 2 s of quiet, then SECONDS of wrk; only that last busy
// stretch of the profile is counted (found by the quiet gaps around it), so start-up, seeding
// and warm-up are left out. Times are per request of the measured run. Self time is time in the
// function's own code; total time includes what it calls. Kernel time inside a system call shows
// under the JavaScript or native frame that made it, and V8 samples wall-clock time, so on a busy
// machine time the server spends descheduled (often right after a write wakes wrk) is counted
// too. --perf samples CPU time instead, kernel symbols included, with JavaScript names from
// --perf-basic-prof. Profiles are kept in bench/results/profiles (.cpuprofile for Chrome
// DevTools or speedscope; perf.data for `perf report -i`).
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { round } from './measure.ts';
import { MCP_HEADERS, mcpGetDeck, mcpToolCall } from './mcp.ts';
import { API, startCeilingFor, startDeckServer } from './reads.ts';
import { ROOT } from './servers.ts';
import { CONNECTIONS, THREADS } from './throughput.ts';
import { runWrk, type WrkResult } from './wrk.ts';

interface CallFrame { functionName: string; url: string; lineNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; children?: number[] }
interface CpuProfile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

const QUIET_GAP_US = 700_000;

function key(frame: CallFrame): string {
  if (frame.url === '') return frame.functionName || '(anonymous)';
  const file = frame.url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '');
  return `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
}

/** Which package, Node module or source file a frame belongs to. */
function owner(frame: CallFrame): string {
  const url = frame.url;
  if (url === '') return frame.functionName.startsWith('(') ? frame.functionName : 'native (V8 builtins, bindings)';
  if (url.startsWith('node:')) return url.replace(/^node:(?:internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  const modules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (modules !== null) return modules[1];
  return url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '');
}

export interface ProfileSummary {
  windowMs: number;
  busyMs: number;
  byOwner: { owner: string; selfMs: number }[];
  bySelf: { fn: string; selfMs: number }[];
  byTotal: { fn: string; totalMs: number }[];
}

/** Self and total time per function within the longest busy stretch of the profile. */
export function summarise(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const isIdle = (id: number) => byId.get(id)?.callFrame.functionName === '(idle)';
  // A sample lasts until the next one.
  const durations = profile.timeDeltas.slice(1).concat([0]);
  // Busy stretches separated by quiet gaps; the longest is the measured run.
  let best = { from: 0, to: -1, us: 0 };
  let from = 0;
  let lastBusy = -1;
  let quiet = 0;
  let elapsed = 0;
  let elapsedAtLastBusy = 0;
  const close = () => {
    if (lastBusy >= from && elapsedAtLastBusy > best.us) best = { from, to: lastBusy, us: elapsedAtLastBusy };
  };
  for (let i = 0; i < profile.samples.length; i++) {
    const d = durations[i];
    elapsed += d;
    if (isIdle(profile.samples[i])) {
      quiet += d;
      if (quiet >= QUIET_GAP_US) {
        close();
        from = i + 1;
        elapsed = 0;
        elapsedAtLastBusy = 0;
        quiet = 0;
      }
    } else {
      quiet = 0;
      lastBusy = i;
      elapsedAtLastBusy = elapsed;
    }
  }
  close();
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const owners = new Map<string, number>();
  let busy = 0;
  for (let i = best.from; i <= best.to; i++) {
    const id = profile.samples[i];
    const d = durations[i];
    const node = byId.get(id) as ProfileNode;
    if (isIdle(id)) continue;
    busy += d;
    self.set(key(node.callFrame), (self.get(key(node.callFrame)) ?? 0) + d);
    owners.set(owner(node.callFrame), (owners.get(owner(node.callFrame)) ?? 0) + d);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const k = key((byId.get(at) as ProfileNode).callFrame);
      if (!seen.has(k)) {
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + d);
      }
    }
  }
  const ms = (us: number) => us / 1000;
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return {
    windowMs: ms(best.us),
    busyMs: ms(busy),
    byOwner: sorted(owners).map(([o, us]) => ({ owner: o, selfMs: ms(us) })),
    bySelf: sorted(self).map(([fn, us]) => ({ fn, selfMs: ms(us) })),
    byTotal: sorted(total).filter(([fn]) => !fn.startsWith('(root)')).map(([fn, us]) => ({ fn, totalMs: ms(us) })),
  };
}

interface PerfSample { thread: string; frames: { sym: string; dso: string }[] }

/** The samples of a perf.data file with their call stacks, leaf first. */
function perfSamples(file: string): PerfSample[] {
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'comm,tid,ip,sym,dso'], {
    encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1024 * 1024 * 1024,
  });
  const samples: PerfSample[] = [];
  for (const block of text.split(/\n\s*\n/)) {
    const lines = block.split('\n').filter((l) => l.trim() !== '');
    if (lines.length === 0) continue;
    const thread = (lines[0]).trim().replace(/\s+\d+$/, '');
    const frames = lines.slice(1).map((l) => {
      const m = /^\s*[0-9a-f]+ (.*) \((.*)\)$/.exec(l);
      return m === null ? { sym: l.trim(), dso: '' } : { sym: m[1], dso: m[2] };
    });
    samples.push({ thread, frames });
  }
  return samples;
}

const GC = /v8::internal::(?:Heap::|Scavenger|MarkCompactCollector|MinorMarkSweep|MinorGCJob|GCTracer|IncrementalMarking|ConcurrentMarking|MemoryAllocator|Sweeper)/;

/** What a JavaScript frame belongs to: our file (and function), a package, or a Node module. */
function jsOwner(sym: string, withFunction: boolean): string {
  // perf-basic-prof names: `JS:<tier>'<name> <where>:<line>:<column>` (tier *, ^, + or ~; the
  // quote and the name may be missing).
  const rest = sym.replace(/^JS:[*^+~]?'?/, '');
  const space = rest.lastIndexOf(' ');
  const fn = (space < 0 ? '' : rest.slice(0, space)) || '(anonymous)';
  const location = /^(.*):(\d+):\d+$/.exec(rest.slice(space + 1));
  const where = (location?.[1] ?? rest.slice(space + 1)).replace(/^file:\/\//, '');
  if (where.startsWith('node:')) return where.replace(/^node:(?:internal\/)?/, 'node:').split('/').slice(0, 2).join('/');
  const pkg = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(where);
  if (pkg !== null) return pkg[1];
  const file = where.replace(`${ROOT}/`, '');
  return withFunction ? `${fn} ${file}:${location?.[2] ?? '?'}` : file;
}

/** Where a sample's CPU went, by the innermost frame that says (see main's output for the rules). */
function ownerOf(sample: PerfSample, mainThread: string): string {
  if (sample.thread !== mainThread) return `other thread: ${sample.thread}`;
  const syms = sample.frames.map((f) => f.sym);
  if (syms.some((x) => GC.test(x))) return 'V8 garbage collection (main thread part)';
  if (sample.frames[0]?.dso === '[kernel.kallsyms]') {
    if (syms.some((x) => /ksys_pwrite|ksys_fdatasync|do_fsync|__x64_sys_pwrite|vfs_fsync/.test(x))) return 'kernel: file writes and syncs (SQLite)';
    if (syms.some((x) => /ksys_write|do_writev|__x64_sys_write/.test(x))) return 'kernel: socket writes (loopback delivery to wrk included)';
    if (syms.some((x) => /ksys_read|__x64_sys_read|ksys_pread/.test(x))) return 'kernel: reads';
    if (syms.some((x) => /epoll/.test(x))) return 'kernel: epoll';
    if (syms.some((x) => /exc_page_fault/.test(x))) return 'kernel: page faults';
    return 'kernel: other (scheduling, interrupts, other calls)';
  }
  if (/better_sqlite3|better-sqlite3/.test(sample.frames[0]?.dso ?? '')) return 'SQLite (better-sqlite3 native)';
  const js = sample.frames.find((f) => f.sym.startsWith('JS:'));
  if (js !== undefined) return jsOwner(js.sym, true);
  if (syms.some((x) => x.startsWith('llhttp'))) return 'llhttp (HTTP parser)';
  return 'native outside JavaScript (libuv, Node, V8)';
}

/** The innermost function of ours on the stack: its cost with all it calls (libraries, kernel, GC). */
function ourFunction(sample: PerfSample, mainThread: string): string | null {
  if (sample.thread !== mainThread) return null;
  const ours = sample.frames.find((f) => f.sym.startsWith('JS:') && f.sym.includes(`${ROOT}/src/`));
  return ours === undefined ? null : jsOwner(ours.sym, true);
}

/** The innermost function of the MCP SDK on the stack, with all it calls (zod, undici, GC, kernel). */
function sdkFunction(sample: PerfSample, mainThread: string): string | null {
  if (sample.thread !== mainThread) return null;
  const frame = sample.frames.find((f) => f.sym.startsWith('JS:') && f.sym.includes('/node_modules/@modelcontextprotocol/'));
  if (frame === undefined) return null;
  const rest = frame.sym.replace(/^JS:[*^+~]?'?/, '');
  const space = rest.lastIndexOf(' ');
  const where = /\/dist\/esm\/(.*):(\d+):\d+$/.exec(rest.slice(space + 1));
  return `${(space < 0 ? '' : rest.slice(0, space)) || '(anonymous)'} sdk/${where?.[1] ?? '?'}:${where?.[2] ?? '?'}`;
}

function tally(samples: PerfSample[], pick: (s: PerfSample) => string | null): [string, number][] {
  const counts = new Map<string, number>();
  for (const sample of samples) {
    const k = pick(sample);
    if (k !== null) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]);
}

const PERF_FLAGS = ['--perf-basic-prof-only-functions', '--interpreted-frames-native-stack'];

/** wrk for `seconds` on a process while perf records its CPU (all its threads, kernel included). */
async function perfRun(pid: number, perfFile: string, seconds: number, load: (s: number) => Promise<WrkResult>): Promise<WrkResult> {
  await load(5);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const perf = spawn('perf', ['record', '-F', '1999', '-g', '-p', String(pid), '-o', perfFile, '--', 'sleep', String(seconds)], { stdio: 'ignore' });
  const recorded = new Promise<void>((resolve, reject) => perf.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`perf record exited with ${code}`)))));
  const run = await load(seconds);
  await recorded;
  return run;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const usePerf = args.includes('--perf');
  const [route, secondsText] = args.filter((a) => !a.startsWith('--'));
  const seconds = Number(secondsText ?? 20);
  if (!['deck', 'whoami', 'mcp', 'mcp-whoami'].includes(route ?? '')) throw new Error('usage: npx node bench/profile.ts deck|whoami|mcp|mcp-whoami [SECONDS] [--perf]');
  const mcp = route.startsWith('mcp');
  const dir = path.join(ROOT, 'bench/results/profiles');
  fs.mkdirSync(dir, { recursive: true });
  const name = `${route}-${Date.now()}`;
  // BENCH_SERVER_NODE_FLAGS (servers.ts) adds flags, e.g. --no-turbo-inlining --no-maglev-inlining so
  // that perf sees our functions that V8 would inline into their callers.
  const nodeFlags = usePerf
    ? PERF_FLAGS
    : ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-name=${name}.cpuprofile`, '--cpu-prof-interval=250'];
  const deck = await startDeckServer('profile', { kind: 'sqlite' }, { nodeFlags });
  const routePath = route.endsWith('whoami') ? `${API}/whoami` : deck.deckPath;
  const wrkOn = (url: string, pid: number, headers: Record<string, string>) => (s: number) =>
    runWrk({ url, headers, seconds: s, connections: CONNECTIONS, threads: THREADS, watch: [pid] });
  const mcpLoad = (s: number) => runWrk({
    url: `${deck.server.url}/mcp`, headers: { ...deck.auth, ...MCP_HEADERS }, request: route === 'mcp' ? mcpGetDeck(deck.deckId) : mcpToolCall('whoami', {}),
    seconds: s, connections: CONNECTIONS, threads: THREADS, watch: [deck.server.pid],
  });
  let run: WrkResult;
  let ceilingRun: WrkResult | null = null;
  const perfFile = path.join(dir, `${name}.perf.data`);
  const ceilingPerfFile = path.join(dir, `${name}.ceiling.perf.data`);
  try {
    const load = mcp ? mcpLoad : wrkOn(`${deck.server.url}${routePath}`, deck.server.pid, deck.auth);
    if (usePerf) {
      // perf samples CPU time (cycles) of the process's threads, kernel included: unlike V8's
      // wall-clock sampler, time the server spends descheduled on a busy machine is not counted.
      run = await perfRun(deck.server.pid, perfFile, seconds, load);
      if (mcp) {
        // The reference of an MCP call is the API route its tool stands for, on the same server.
        ceilingRun = await perfRun(deck.server.pid, ceilingPerfFile, seconds, wrkOn(`${deck.server.url}${routePath}`, deck.server.pid, deck.auth));
      } else {
        const { ceiling } = await startCeilingFor(deck, [routePath], PERF_FLAGS);
        try {
          ceilingRun = await perfRun(ceiling.pid, ceilingPerfFile, seconds, wrkOn(`${ceiling.url}${routePath}`, ceiling.pid, {}));
        } finally {
          await ceiling.stop();
        }
      }
    } else {
      await load(5);
      await new Promise((resolve) => setTimeout(resolve, 2000));
      run = await load(seconds);
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
  } finally {
    await deck.server.stop();
  }
  const cpuUs = run.serverCpuUs[0];
  const head = `${mcp ? `MCP ${route === 'mcp' ? 'get_deck' : 'whoami'}` : `GET ${route}`}: ${run.requests} requests in ${seconds} s (${Math.round(run.reqPerSec)} req/s), server CPU ${round(cpuUs, 1)} µs per request (from /proc)`;
  if (usePerf && ceilingRun !== null) {
    const ceilingUs = ceilingRun.serverCpuUs[0];
    const samples = perfSamples(perfFile);
    const ceilingSamples = perfSamples(ceilingPerfFile);
    const main = (list: PerfSample[]) => tally(list, (x) => x.thread)[0]?.[0] ?? '';
    const mainThread = main(samples);
    const ceilingMainThread = main(ceilingSamples);
    const owners = tally(samples, (x) => ownerOf(x, mainThread));
    const ceilingOwners = new Map(tally(ceilingSamples, (x) => ownerOf(x, ceilingMainThread)));
    const us = (n: number, total: number, perRequest: number) => round((n / total) * perRequest, 1);
    const names = [...new Set([...owners.map(([k]) => k), ...ceilingOwners.keys()])];
    const flashdeckUs = new Map(owners.map(([k, n]) => [k, us(n, samples.length, cpuUs)]));
    const rows = names.map((k) => [k, flashdeckUs.get(k) ?? 0, us(ceilingOwners.get(k) ?? 0, ceilingSamples.length, ceilingUs)] as const)
      .sort((a, b) => (b[1] - b[2]) - (a[1] - a[2])).filter((r) => r[1] >= 0.3 || r[2] >= 0.3);
    const reference = mcp ? 'API route' : 'node:http';
    const line = (k: string, a: number | string, b: number | string, c: number | string) =>
      `${k.slice(0, 62).padEnd(62)} ${String(a).padStart(9)} ${String(b).padStart(9)} ${String(c).padStart(9)}`;
    const ours = tally(samples, (x) => ourFunction(x, mainThread));
    process.stdout.write([
      head,
      `${mcp ? `reference (API GET ${routePath.replace(deck.deckId, '{deckId}')}, same server)` : 'ceiling (node:http, same bytes)'}: ${ceilingRun.requests} requests (${Math.round(ceilingRun.reqPerSec)} req/s), CPU ${round(ceilingUs, 1)} µs per request`,
      `perf data: ${path.relative(process.cwd(), perfFile)} (${samples.length} samples), ${path.relative(process.cwd(), ceilingPerfFile)} (${ceilingSamples.length})`,
      'µs per request = share of the process\'s samples x its CPU per request (from /proc)',
      '',
      'Owner: the innermost frame that says: GC; kernel, by system call; SQLite; else the innermost JavaScript',
      'frame (functions V8 inlined count as their caller\'s); else native.',
      line('owner', 'Flashdeck', reference, 'extra'),
      ...rows.map(([k, a, b]) => line(k, a, b, round(a - b, 1))),
      line('total', round(cpuUs, 1), round(ceilingUs, 1), round(cpuUs - ceilingUs, 1)),
      '',
      'Flashdeck by our innermost function (src/), with all it calls (libraries, SQLite, GC, kernel):',
      ...ours.slice(0, 30).map(([k, n]) => line(k, us(n, samples.length, cpuUs), '', '')),
      '',
      ...(mcp ? [
        'MCP by the SDK\'s innermost function, with all it calls (zod, undici, GC, kernel):',
        ...tally(samples, (x) => sdkFunction(x, mainThread)).slice(0, 30).map(([k, n]) => line(k, us(n, samples.length, cpuUs), '', '')),
        '',
      ] : []),
    ].join('\n'));
    return;
  }
  const file = path.join(dir, `${name}.cpuprofile`);
  const summary = summarise(JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile);
  const perRequest = (msValue: number) => round((msValue * 1000) / run.requests, 2);
  const pct = (msValue: number) => `${((msValue / summary.busyMs) * 100).toFixed(1)} %`;
  const out: string[] = [
    head,
    `profile window ${Math.round(summary.windowMs)} ms, JavaScript thread busy ${Math.round(summary.busyMs)} ms = ${perRequest(summary.busyMs)} µs per request` +
      ' (V8 samples wall-clock time: on a busy machine, time descheduled inflates it, most in system calls)',
    `profile: ${path.relative(process.cwd(), file)}`,
    '',
    'self time by owner                                       µs/req   share',
    ...summary.byOwner.slice(0, 25).map((o) => `${o.owner.padEnd(55)} ${String(perRequest(o.selfMs)).padStart(7)}  ${pct(o.selfMs).padStart(6)}`),
    '',
    'self time by function                                                                   µs/req   share',
    ...summary.bySelf.slice(0, 40).map((f) => `${f.fn.slice(0, 85).padEnd(85)} ${String(perRequest(f.selfMs)).padStart(7)}  ${pct(f.selfMs).padStart(6)}`),
    '',
    'total time (self + callees) by function, outside Node internals                         µs/req   share',
    ...summary.byTotal.filter((f) => !/ node:/.test(f.fn)).slice(0, 60)
      .map((f) => `${f.fn.slice(0, 85).padEnd(85)} ${String(perRequest(f.totalMs)).padStart(7)}  ${pct(f.totalMs).padStart(6)}`),
  ];
  process.stdout.write(`${out.join('\n')}\n`);
}

if (process.argv[1] === import.meta.filename) {
  main().catch((error: unknown) => {
    process.stderr.write(`profile failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
