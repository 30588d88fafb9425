// RSS of the server `npm start` runs, at start and after sustained reads and imports: compiled
// JavaScript (dist/server.js, built by `npm ci`'s prepare) against type stripping (src/server.ts),
// in interleaved rounds, each a fresh SQLite server with the start script's Node flags. Per round:
// RSS 2 s after /healthz first answers, then START_MEMORY_READ_SECONDS (default 8) of deck reads
// from 8 clients with START_MEMORY_IMPORTS (default 40) 250-card imports spread over them, and
// the RSS at the end (and the reads per second, so both ran the same load).
//
//   npx node bench/start-memory.ts
import { benchDeck } from './deck-fixture.ts';
import { buildIfStale, cliUser, startFlashdeck } from './servers.ts';

const ROUNDS = Number(process.env.START_MEMORY_ROUNDS ?? 2);
const READ_SECONDS = Number(process.env.START_MEMORY_READ_SECONDS ?? 8);
const IMPORTS = Number(process.env.START_MEMORY_IMPORTS ?? 40);
const MB = 1024 * 1024;
const API = '/api/v1';
const ENTRIES = [['compiled', 'dist/server.js'], ['type stripping', 'src/server.ts']] as const;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const importBody = JSON.stringify(benchDeck());

async function measure(label: string, entry: string): Promise<{ start: number; loaded: number; readsPerSecond: number }> {
  const server = await startFlashdeck(`start-${label.replace(' ', '-')}`, { kind: 'sqlite' }, { entry });
  try {
    await sleep(2000);
    const start = server.rssBytes();
    const { token } = await cliUser(server, 'start@bench.example');
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const post = () => fetch(`${server.url}${API}/decks/import`, { method: 'POST', headers, body: importBody }).then(async (r) => {
      const body = await r.text();
      if (r.status !== 201) throw new Error(`import: ${r.status} ${body.slice(0, 200)}`);
      return (JSON.parse(body) as { deckId: string }).deckId;
    });
    const deckId = await post();
    const until = Date.now() + READ_SECONDS * 1000;
    let reads = 0;
    let imports = 1;
    await Promise.all(Array.from({ length: 8 }, async (_, client) => {
      while (Date.now() < until) {
        // Imports spread evenly over the run, by the clients in turn.
        const due = Math.min(IMPORTS, Math.ceil(((Date.now() - (until - READ_SECONDS * 1000)) / (READ_SECONDS * 1000)) * IMPORTS));
        if (client === imports % 8 && imports < due) {
          imports++;
          await post();
          continue;
        }
        const r = await fetch(`${server.url}${API}/decks/${deckId}`, { headers });
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`read: ${r.status}`);
        reads++;
      }
    }));
    while (imports < IMPORTS) { imports++; await post(); }
    return { start, loaded: server.rssBytes(), readsPerSecond: reads / READ_SECONDS };
  } finally {
    await server.stop();
  }
}

buildIfStale();
const results: Record<string, { start: number; loaded: number; readsPerSecond: number }[]> = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [label, entry] of round % 2 === 0 ? ENTRIES : [...ENTRIES].reverse()) {
    (results[label] ??= []).push(await measure(label, entry));
  }
}
const mb = (bytes: number) => (bytes / MB).toFixed(1);
for (const [label, rounds] of Object.entries(results)) {
  const line = rounds.map((r) => `start ${mb(r.start)} MB, after ${READ_SECONDS} s of reads and ${IMPORTS} imports ${mb(r.loaded)} MB (${r.readsPerSecond.toFixed(0)} reads/s)`).join('; ');
  process.stdout.write(`${label}: ${line}\n`);
}
