// Server RSS under a hostile mix (issue 9, item 14): for ATTACK_SECONDS (default 60) at once,
// 200 slow connections dribbling headers, clients sending 17 MB bodies with Content-Length and
// streaming 64 MB chunked bodies (both over the 16 MiB limit: 413), bad JSON, and 250-card imports;
// then ATTACK_IDLE_SECONDS (default 30) of quiet. Prints the peak RSS during the attack and the RSS
// after the quiet, sampled from /proc every 250 ms. SQLite store, the start script's Node flags.
//
//   npx node bench/attack-memory.ts
import net from 'node:net';
import { benchDeck } from './deck-fixture.ts';
import { API, startDeckServer } from './reads.ts';

const SECONDS = Number(process.env.ATTACK_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.ATTACK_IDLE_SECONDS ?? 30);
const MB = 1024 * 1024;

const deck = await startDeckServer('attack');
const { server, auth } = deck;
const port = Number(new URL(server.url).port);
const until = Date.now() + SECONDS * 1000;
const running = () => Date.now() < until;
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, server.rssBytes()); }, 250);
const counts = { slow: 0, big: 0, chunked: 0, badJson: 0, imports: 0 };

function slowConnection(): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const head = `GET ${API}/whoami HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nX-Pad: ${'a'.repeat(200)}\r\n\r\n`;
    let at = 0;
    const timer = setInterval(() => {
      if (!running() || at >= head.length || socket.destroyed) {
        clearInterval(timer);
        socket.destroy();
        resolve();
        return;
      }
      socket.write(head[at++] ?? '');
    }, 1000);
    socket.on('error', () => { /* refused or timed out: what an attacker sees */ });
    socket.on('close', () => { clearInterval(timer); resolve(); });
    counts.slow++;
  });
}

async function loop(work: () => Promise<unknown>): Promise<void> {
  while (running()) await work().catch(() => undefined);
}

const big = Buffer.alloc(17 * MB, 'a');
const sendBig = () => fetch(`${server.url}${API}/decks/import`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: big,
}).then(async (r) => { await r.arrayBuffer(); counts.big++; });

const sendChunked = () => {
  let sent = 0;
  const chunk = new Uint8Array(MB).fill(97);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= 64 || !running()) controller.close();
      else { sent++; controller.enqueue(chunk); }
    },
  });
  return fetch(`${server.url}${API}/decks/import`, {
    method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body, duplex: 'half',
  }).then(async (r) => { await r.arrayBuffer(); counts.chunked++; });
};

const sendBadJson = () => fetch(`${server.url}${API}/decks/import`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: `{"deck":${'['.repeat(5000)}`,
}).then(async (r) => { await r.arrayBuffer(); counts.badJson++; });

const importBody = JSON.stringify(benchDeck());
const sendImport = () => fetch(`${server.url}${API}/decks/import`, {
  method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: importBody,
}).then(async (r) => { await r.arrayBuffer(); counts.imports++; });

const startRss = server.rssBytes();
await Promise.all([
  ...Array.from({ length: 200 }, () => loop(slowConnection)),
  ...Array.from({ length: 4 }, () => loop(sendBig)),
  ...Array.from({ length: 2 }, () => loop(sendChunked)),
  loop(sendBadJson),
  ...Array.from({ length: 2 }, () => loop(sendImport)),
]);
const endOfAttack = server.rssBytes();
await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
clearInterval(sampler);
const after = server.rssBytes();
const healthy = await fetch(`${server.url}/healthz`).then((r) => r.status);
await server.stop();

const mb = (bytes: number) => (bytes / MB).toFixed(1);
process.stdout.write(`${JSON.stringify(counts)}\n`);
process.stdout.write(`RSS before ${mb(startRss)} MB, peak during ${SECONDS} s of attack ${mb(peak)} MB, at its end ${mb(endOfAttack)} MB, after ${IDLE_SECONDS} s of quiet ${mb(after)} MB; /healthz ${healthy}\n`);
