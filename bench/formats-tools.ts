// Tools of bench/formats.ts: a timed request with a binary body, a /healthz poller that runs
// beside a long request, and a sampler of a server's RSS (with the kernel's own peak, VmHWM).
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { rssBytes } from './proc.ts';

// One kept-alive socket for the sequential imports; the poller has its own.
const importAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });

export interface TimedBinary { status: number; ms: number; body: string }

/** One request with a Buffer body, timed from the first byte sent to the last byte received. */
export function binaryRequest(url: string, headers: Record<string, string>, body: Buffer, keepAlive = false): Promise<TimedBinary> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = http.request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) }, agent: keepAlive ? importAgent : false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The peak resident set size of process `pid` so far (VmHWM), in bytes. */
export function hwmBytes(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (match === null) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(match[1]) * 1024;
}

/** Samples RSS every `everyMs`; stop() gives the largest seen. */
export function sampleRss(pid: number, everyMs: number): { stop(): number } {
  let peak = rssBytes(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssBytes(pid)); }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, rssBytes(pid));
    },
  };
}

export interface Poll { status: number; ms: number }

/**
 * GET `url` one at a time, a new one `everyMs` after the last began (at once when it took longer),
 * on a kept-alive connection of its own, until stop(); stop() waits for the poll in flight.
 */
export function pollHealth(url: string, everyMs: number): { stop(): Promise<Poll[]> } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const polls: Poll[] = [];
  let stopped = false;
  const once = () => new Promise<Poll>((resolve) => {
    const started = performance.now();
    http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    }).on('error', () => resolve({ status: 0, ms: performance.now() - started }));
  });
  const loop = (async () => {
    while (!stopped) {
      const poll = await once();
      polls.push(poll);
      if (poll.ms < everyMs) await new Promise((resolve) => setTimeout(resolve, everyMs - poll.ms));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      agent.destroy();
      return polls;
    },
  };
}
