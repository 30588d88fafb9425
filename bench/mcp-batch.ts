// JSON-RPC batches against the MCP endpoint (issue 22, DECISIONS "MCP"): while the largest batch
// the server takes (10 get_deck calls on the largest deck: 250 cards at every field limit, ~8 MB
// each) is answered, GET /healthz keeps answering (goal: under 1 s) and the server's RSS grows by
// less than 50 MB; a batch of 100 is refused. Each batch is read by a fast client (as fast as
// loopback goes) and by a slow one (64 KiB every 20 ms: the server must not pile the answers up).
// The server is `npm start`'s process on a real port; RSS from /proc every 10 ms.
//
//   npx node bench/mcp-batch.ts            (BATCH_ROUNDS=3 batches per reader)
import net from 'node:net';
import { largestDeckBody } from '../test/helpers/fixtures.ts';
import { percentile, round } from './measure.ts';
import { MB } from './proc.ts';
import { cliUser, startFlashdeck } from './servers.ts';

const ROUNDS = Number(process.env.BATCH_ROUNDS ?? 3);
const log = (line: string) => process.stderr.write(`${line}\n`);

const server = await startFlashdeck('mcp-batch', { kind: 'sqlite' });
try {
  const { token } = await cliUser(server, 'batch@bench.example');
  const auth = { authorization: `Bearer ${token}` };
  const imported = await fetch(`${server.url}/api/v1/decks/import`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(largestDeckBody()) });
  if (imported.status !== 201) throw new Error(`import: ${imported.status} ${(await imported.text()).slice(0, 300)}`);
  const { deckId } = await imported.json() as { deckId: string };
  const apiBytes = (await (await fetch(`${server.url}/api/v1/decks/${deckId}`, { headers: { ...auth, 'accept-encoding': 'identity' } })).arrayBuffer()).byteLength;
  const call = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'get_deck', arguments: { deckId } } });
  const body = (n: number) => JSON.stringify(Array.from({ length: n }, (_, i) => call(i)));
  const headers = { ...auth, 'content-type': 'application/json', accept: 'application/json', 'accept-encoding': 'identity' };

  // Warm up: the SDK is loaded on first use, the deck rendered and cached, the JIT warmed.
  for (let i = 0; i < 3; i++) await (await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(call(1)) })).arrayBuffer();

  const refused = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body: body(100) });
  const refusedBytes = (await refused.arrayBuffer()).byteLength;
  log(`a batch of 100 get_deck (${body(100).length} B): HTTP ${refused.status}, ${refusedBytes} B`);

  /** Sends the 10-call batch over a raw socket, reading `chunk` bytes every `everyMs` (0: at once). */
  function batch(everyMs: number): Promise<{ ms: number; bytes: number }> {
    const payload = body(10);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(new URL(server.url).port), '127.0.0.1');
      let bytes = 0;
      socket.on('error', reject);
      socket.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (everyMs > 0) {
          socket.pause();
          setTimeout(() => socket.resume(), everyMs);
        }
      });
      socket.on('end', () => resolve({ ms: performance.now() - started, bytes }));
      const head = [`POST /mcp HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: ${auth.authorization}`, 'Content-Type: application/json', 'Accept: application/json',
        'Accept-Encoding: identity', 'Connection: close', `Content-Length: ${Buffer.byteLength(payload)}`, '', ''].join('\r\n');
      // Not end(): a client that half-closes gets its response cut short by Node's HTTP server.
      socket.write(head + payload);
    });
  }

  const results: Record<string, unknown>[] = [];
  for (const [reader, everyMs] of [['fast', 0], ['slow (64 KiB per 20 ms)', 20]] as const) {
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      const baseline = server.rssBytes();
      let peak = baseline;
      const sampler = setInterval(() => { peak = Math.max(peak, server.rssBytes()); }, 10);
      const health: number[] = [];
      let running = true;
      const prober = (async () => {
        while (running) {
          const t = performance.now();
          await (await fetch(`${server.url}/healthz`)).arrayBuffer();
          health.push(performance.now() - t);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const { ms, bytes } = await batch(everyMs === 0 ? 0 : everyMs);
      running = false;
      await prober;
      clearInterval(sampler);
      const row = {
        reader, round: round_ + 1, batchMs: round(ms, 0), responseMB: round(bytes / MB, 1),
        rssBeforeMB: round(baseline / MB, 1), rssGrowthMB: round((peak - baseline) / MB, 1),
        healthz: health.length, healthzMaxMs: round(Math.max(...health), 1), healthzP50Ms: round(percentile(health, 50), 1),
      };
      results.push(row);
      log(JSON.stringify(row));
    }
  }
  const growth = Math.max(...results.map((r) => r.rssGrowthMB as number));
  const stall = Math.max(...results.map((r) => r.healthzMaxMs as number));
  console.log(JSON.stringify({
    deckBytes: apiBytes, refused100: { status: refused.status, bytes: refusedBytes },
    rounds: results,
    goals: { rssGrowthUnder50MB: growth < 50, healthzUnder1s: stall < 1000, maxRssGrowthMB: growth, maxHealthzMs: stall },
  }, null, 2));
} finally {
  await server.stop();
}
