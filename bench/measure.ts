// Latency tools for the bench: a keep-alive HTTP client that times one request at a time, and the
// statistics (percentiles, median) every figure uses. Throughput is wrk's (bench/wrk.ts).
import http from 'node:http';
import { performance } from 'node:perf_hooks';

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
  return sorted[rank];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid]) : ((sorted[mid - 1]) + (sorted[mid])) / 2;
}

export function mean(values: number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
