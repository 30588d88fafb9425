// Memory under sustained load: a fresh server takes wrk on GET /decks/{id} and, at the same time,
// one client importing the 250-card deck (JSON and markdown alternating) at BENCH_SOAK_IMPORTS_PER_SEC
// (5; one at a time, the next as soon as the last is done when they take longer), for
// BENCH_SOAK_SECONDS (60); its RSS then is the first figure. Back to back, imports would take most
// of the server (about 30 a second here, 2 GB of decks in six minutes) and starve the reads. The same load goes on for a further
// BENCH_SOAK_WATCH_SECONDS (300) while RSS is sampled every BENCH_SOAK_SAMPLE_SECONDS (5): flat
// means every sample within 10 % of the first figure. BENCH_SOAK=short: 15 s then 30 s (a quick
// look, not the goal's figure); BENCH_SOAK=off skips it.
import { importBodies, importOnce, type ImportFormat } from './imports.ts';
import { round } from './measure.ts';
import { MB } from './proc.ts';
import { startDeckServer } from './reads.ts';
import { CONNECTIONS, THREADS } from './throughput.ts';
import { runWrk } from './wrk.ts';

export const SOAK_MODE = process.env.BENCH_SOAK ?? 'full';
const SHORT = SOAK_MODE === 'short';
const LOAD_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? (SHORT ? 15 : 60));
const WATCH_SECONDS = Number(process.env.BENCH_SOAK_WATCH_SECONDS ?? (SHORT ? 30 : 300));
const SAMPLE_SECONDS = Number(process.env.BENCH_SOAK_SAMPLE_SECONDS ?? 5);
const IMPORTS_PER_SEC = Number(process.env.BENCH_SOAK_IMPORTS_PER_SEC ?? 5);
const FLAT_WITHIN = 0.1;

const log = (line: string) => process.stderr.write(`${line}\n`);

export interface SoakFigures {
  mode: string;
  loadSeconds: number;
  watchSeconds: number;
  /** RSS after the first LOAD_SECONDS of load, MB. */
  rssAfterLoadMB: number;
  /** RSS sampled over the further WATCH_SECONDS: seconds since the load began, MB. */
  samples: { atSeconds: number; rssMB: number }[];
  watchMinMB: number;
  watchMaxMB: number;
  rssAtEndMB: number;
  /** The largest distance of a sample from rssAfterLoadMB, as a fraction of it. */
  maxDeviation: number;
  flat: boolean;
  /** The server's CPU over the whole soak divided by the reads (so the imports' CPU is in it). */
  reads: { reqPerSec: number; requests: number; cpuUsPerReadWithImports: number };
  imports: { count: number; perSec: number; targetPerSec: number };
}

export async function soak(): Promise<SoakFigures> {
  const deck = await startDeckServer('soak');
  try {
    const bodies = await importBodies(deck);
    log(`soak: reads (wrk, ${CONNECTIONS} connections) and ${IMPORTS_PER_SEC} imports/s (one client) for ${LOAD_SECONDS} s, then RSS every ${SAMPLE_SECONDS} s for ${WATCH_SECONDS} s more`);
    const started = Date.now();
    const samples: { atSeconds: number; rssMB: number }[] = [];
    let rssAfterLoad = Number.NaN;
    let stop = false;
    let imports = 0;
    const importing = (async () => {
      const formats: ImportFormat[] = ['json', 'markdown'];
      let due = started;
      while (!stop) {
        if (Date.now() < due) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
        if (stop) break;
        // Never a burst to catch up: the next one is due an interval after this one starts.
        due = Date.now() + 1000 / IMPORTS_PER_SEC;
        await importOnce(deck, bodies, formats[imports % 2]);
        imports++;
      }
    })();
    const sampleAt = (seconds: number) => new Promise<void>((resolve) => setTimeout(() => {
      const rss = deck.server.rssBytes() / MB;
      if (seconds === LOAD_SECONDS) rssAfterLoad = rss;
      samples.push({ atSeconds: seconds, rssMB: round(rss, 1) });
      if (seconds === LOAD_SECONDS || seconds % 60 === 0) log(`  ${seconds} s: RSS ${rss.toFixed(1)} MB, ${imports} imports`);
      resolve();
    }, started + seconds * 1000 - Date.now()));
    const sampling: Promise<void>[] = [];
    for (let s = LOAD_SECONDS; s <= LOAD_SECONDS + WATCH_SECONDS; s += SAMPLE_SECONDS) sampling.push(sampleAt(s));
    // wrk runs a second longer so the last sample is still taken under load.
    const reads = await runWrk({
      url: `${deck.server.url}${deck.deckPath}`, headers: deck.auth, seconds: LOAD_SECONDS + WATCH_SECONDS + 1,
      connections: CONNECTIONS, threads: THREADS, watch: [deck.server.pid],
    }).finally(() => { stop = true; });
    await Promise.all(sampling);
    await importing;
    if (reads.failed > 0) throw new Error(`soak: ${reads.failed} failed reads`);
    const watched = samples.map((s) => s.rssMB);
    const maxDeviation = Math.max(...watched.map((v) => Math.abs(v - rssAfterLoad) / rssAfterLoad));
    const seconds = (Date.now() - started) / 1000;
    return {
      mode: SHORT ? 'short' : 'full',
      loadSeconds: LOAD_SECONDS,
      watchSeconds: WATCH_SECONDS,
      rssAfterLoadMB: round(rssAfterLoad, 1),
      samples,
      watchMinMB: Math.min(...watched),
      watchMaxMB: Math.max(...watched),
      rssAtEndMB: watched.at(-1) as number,
      maxDeviation: round(maxDeviation, 3),
      flat: maxDeviation <= FLAT_WITHIN,
      reads: { reqPerSec: round(reads.reqPerSec, 0), requests: reads.requests, cpuUsPerReadWithImports: round(reads.serverCpuUs[0], 1) },
      imports: { count: imports, perSec: round(imports / seconds, 1), targetPerSec: IMPORTS_PER_SEC },
    };
  } finally {
    await deck.server.stop();
  }
}
