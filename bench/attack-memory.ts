// Server RSS under a hostile mix (issue 9, item 14; issue 23, item 3): first 30 concurrent
// sign-ins for one account (29 wrong, the right one last: how many were checked, and the RSS they
// cost); then for ATTACK_SECONDS (default 60) at once, 200 slow connections dribbling headers,
// clients sending 17 MB bodies with Content-Length and streaming 64 MB chunked bodies (both over
// the 16 MiB limit: 413), bad JSON, 250-card imports, bursts of 30 concurrent sign-ins to many
// accounts (the address throttle raised, as if from many addresses, so only the hashing queue
// bounds them), and MCP batches (JSON-RPC arrays of 50 get_deck calls, and import_deck calls);
// then ATTACK_IDLE_SECONDS (default 60) of quiet. Prints the warmed-up idle RSS, the peak during
// the attack, and the RSS every 10 s of the quiet, with the first time it was back under 1.3x the
// idle figure; sampled from /proc every 250 ms. SQLite store, the start script's entry and flags.
//
//   npx node bench/attack-memory.ts
import net from 'node:net';
import { benchDeck } from './deck-fixture.ts';
import { API, startDeckServer } from './reads.ts';

const SECONDS = Number(process.env.ATTACK_SECONDS ?? 60);
const IDLE_SECONDS = Number(process.env.ATTACK_IDLE_SECONDS ?? 60);
const MB = 1024 * 1024;

// Sign-ins from one address stand for many here: the per-address throttle would otherwise stop
// them all after 20, and the point is what the hashing queue bounds.
const deck = await startDeckServer('attack', { kind: 'sqlite' }, { env: { FAILED_AUTH_PER_MINUTE: '1000000' } });
const { server, auth } = deck;
const port = Number(new URL(server.url).port);
let peak = 0;
const sampler = setInterval(() => { peak = Math.max(peak, server.rssBytes()); }, 250);
const counts = { slow: 0, big: 0, chunked: 0, badJson: 0, imports: 0, signIns: 0, signInsChecked: 0, signInsBusy: 0, mcpBatches: 0, mcpImports: 0 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PASSWORD = 'correct horse battery';

/** A browser's sign-in form: its cookie and CSRF token, ready to post. */
async function signInForm(): Promise<{ cookie: string; csrf: string }> {
  const res = await fetch(`${server.url}/signin`);
  const html = await res.text();
  const cookie = res.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
  return { cookie, csrf: /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '' };
}

async function signIn(email: string, password: string): Promise<number> {
  const { cookie, csrf } = await signInForm();
  const res = await fetch(`${server.url}/signin`, {
    method: 'POST', redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password }).toString(),
  });
  await res.arrayBuffer();
  counts.signIns++;
  if (res.status === 400 || res.status === 303) counts.signInsChecked++;
  if (res.status === 503) counts.signInsBusy++;
  return res.status;
}

// Accounts with a password (the page's sign-up), made before anything is measured.
const accounts: string[] = [];
for (let i = 0; i < 4; i++) {
  const email = `attack${i}@bench.example`;
  const { cookie } = await signInForm();
  const form = await fetch(`${server.url}/signup`, { headers: { cookie } });
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const made = await fetch(`${server.url}/signup`, {
    method: 'POST', redirect: 'manual', headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email, password: PASSWORD }).toString(),
  });
  if (made.status !== 303) throw new Error(`sign-up ${email}: ${made.status}`);
  accounts.push(email);
}

// 30 concurrent sign-ins for one account, 29 wrong and the right one last.
await sleep(2000);
const beforeBurst = server.rssBytes();
peak = beforeBurst;
const burst = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(accounts[0] ?? '', i === 29 ? PASSWORD : `wrong password ${i}`)));
const burstPeak = peak;
const checked = burst.filter((status) => status === 400 || status === 303).length;
process.stdout.write(`30 concurrent sign-ins for one account: ${checked} checked (hashes), statuses ${JSON.stringify(burst.reduce<Record<number, number>>((acc, st) => ({ ...acc, [st]: (acc[st] ?? 0) + 1 }), {}))}, the right one (last) ${burst[29]}; RSS ${(beforeBurst / MB).toFixed(1)} MB before, peak ${(burstPeak / MB).toFixed(1)} MB (+${((burstPeak - beforeBurst) / MB).toFixed(1)} MB)\n`);
for (const key of Object.keys(counts) as (keyof typeof counts)[]) counts[key] = 0;

let until = Number.POSITIVE_INFINITY;
const running = () => Date.now() < until;

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
      if (sent >= 64 || (sent > 0 && !running())) controller.close();
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

let round = 0;
/** Bursts of 30 concurrent sign-ins: wrong passwords for the accounts and unknown emails. */
const signInBurst = async () => {
  round++;
  await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(i % 2 === 0 ? accounts[i % accounts.length] ?? '' : `nobody${round}-${i}@bench.example`, `wrong password ${round}`)));
  await sleep(500);
};

const mcpHeaders = { ...auth, accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18', 'content-type': 'application/json' };
const getDeckBatch = JSON.stringify(Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'get_deck', arguments: { deckId: deck.deckId } } })));
const sendMcpBatch = () => fetch(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: getDeckBatch })
  .then(async (r) => { await r.arrayBuffer(); counts.mcpBatches++; });
const mcpImport = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'import_deck', arguments: JSON.parse(importBody) as object } });
const sendMcpImport = () => fetch(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: mcpImport })
  .then(async (r) => { await r.arrayBuffer(); counts.mcpImports++; });

// Warmed-up idle: one of each request the attack sends (the MCP SDK and the pages load on first
// use), then quiet.
for (const send of [sendBig, sendChunked, sendBadJson, sendImport, sendMcpBatch, sendMcpImport]) await send();
await signIn(accounts[1] ?? '', 'wrong password warm-up');
await sleep(15_000);
const idle = server.rssBytes();
until = Date.now() + SECONDS * 1000;
peak = 0;

await Promise.all([
  ...Array.from({ length: 200 }, () => loop(slowConnection)),
  ...Array.from({ length: 4 }, () => loop(sendBig)),
  ...Array.from({ length: 2 }, () => loop(sendChunked)),
  loop(sendBadJson),
  ...Array.from({ length: 2 }, () => loop(sendImport)),
  loop(signInBurst),
  loop(sendMcpBatch),
  loop(sendMcpImport),
]);
const endOfAttack = server.rssBytes();
const quiet: string[] = [];
let backAt: number | null = null;
const quietStart = Date.now();
while (Date.now() - quietStart < IDLE_SECONDS * 1000) {
  await sleep(1000);
  const rss = server.rssBytes();
  const second = Math.round((Date.now() - quietStart) / 1000);
  if (backAt === null && rss < idle * 1.3) backAt = second;
  if (second % 10 === 0) quiet.push(`${second}s ${(rss / MB).toFixed(1)}`);
}
clearInterval(sampler);
const after = server.rssBytes();
const healthy = await fetch(`${server.url}/healthz`).then((r) => r.status);
await server.stop();

const mb = (bytes: number) => (bytes / MB).toFixed(1);
process.stdout.write(`${JSON.stringify(counts)}\n`);
process.stdout.write(`RSS warmed-up idle ${mb(idle)} MB, peak during ${SECONDS} s of attack ${mb(peak)} MB, at its end ${mb(endOfAttack)} MB, after ${IDLE_SECONDS} s of quiet ${mb(after)} MB (${(after / idle).toFixed(2)}x idle); quiet: ${quiet.join(', ')} MB; back under 1.3x idle ${backAt === null ? 'not within the quiet' : `after ${backAt} s`}; /healthz ${healthy}\n`);
