// POST /decks/import latency: one client, one keep-alive connection, one request at a time, each
// creating a 250-card deck (201), JSON and markdown alternating. Also the server's CPU per import.
import { benchDeck } from './deck-fixture.ts';
import { mean, percentile, round, timedRequest } from './measure.ts';
import { API, type DeckServer } from './reads.ts';

export const IMPORTS = Number(process.env.BENCH_IMPORTS ?? 70);
export const IMPORT_WARMUP = Number(process.env.BENCH_IMPORT_WARMUP ?? 10);

const log = (line: string) => process.stderr.write(`${line}\n`);

export type ImportFormat = 'json' | 'markdown';
export type ImportBodies = Record<ImportFormat, { contentType: string; body: string }>;

/** The fixture as JSON, and as the markdown the server exports for it. */
export async function importBodies(deck: DeckServer): Promise<ImportBodies> {
  const exported = await timedRequest(`${deck.server.url}${deck.deckPath}`, { headers: { ...deck.auth, accept: 'text/markdown' } });
  if (exported.status !== 200) throw new Error(`markdown export failed: ${exported.status}`);
  return {
    json: { contentType: 'application/json', body: JSON.stringify(benchDeck()) },
    markdown: { contentType: 'text/markdown', body: exported.body },
  };
}

/** One import; throws unless it created the deck. Returns its latency in ms. */
export async function importOnce(deck: DeckServer, bodies: ImportBodies, format: ImportFormat): Promise<number> {
  const { contentType, body } = bodies[format];
  const res = await timedRequest(`${deck.server.url}${API}/decks/import`, {
    method: 'POST', headers: { ...deck.auth, 'content-type': contentType }, body,
  });
  if (res.status !== 201) throw new Error(`import (${format}) failed: ${res.status} ${res.body.slice(0, 200)}`);
  return res.ms;
}

export interface ImportStats {
  bodyBytes: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  /** Server CPU per import, ms: the CPU of the whole timed series (both formats) split by format time. */
  serverCpuMs: number;
}

export interface ImportFigures {
  requests: number;
  warmup: number;
  json: ImportStats;
  markdown: ImportStats;
}

export async function importLatency(deck: DeckServer): Promise<ImportFigures> {
  const bodies = await importBodies(deck);
  log(`import: ${IMPORT_WARMUP} warm-up and ${IMPORTS} timed creates per format, alternating JSON and markdown, one at a time`);
  const samples: Record<ImportFormat, number[]> = { json: [], markdown: [] };
  const cpu: Record<ImportFormat, number> = { json: 0, markdown: 0 };
  for (let i = 0; i < IMPORT_WARMUP + IMPORTS; i++) {
    for (const format of ['json', 'markdown'] as const) {
      const before = deck.server.cpuSeconds();
      const ms = await importOnce(deck, bodies, format);
      if (i >= IMPORT_WARMUP) {
        samples[format].push(ms);
        cpu[format] += deck.server.cpuSeconds() - before;
      }
    }
  }
  const stats = (format: ImportFormat): ImportStats => ({
    bodyBytes: Buffer.byteLength(bodies[format].body),
    p50Ms: round(percentile(samples[format], 50)),
    p90Ms: round(percentile(samples[format], 90)),
    p99Ms: round(percentile(samples[format], 99)),
    meanMs: round(mean(samples[format])),
    serverCpuMs: round((cpu[format] / IMPORTS) * 1000),
  });
  return { requests: IMPORTS, warmup: IMPORT_WARMUP, json: stats('json'), markdown: stats('markdown') };
}
