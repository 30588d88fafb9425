// The real server as a child process: killed without warning mid-stream, it must come back with
// every acknowledged import and no partial deck; stopped with SIGTERM, it must finish what it
// started and exit 0.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { after, describe, test } from 'node:test';
import { cliUserAndToken, startServerProcess, tempDataDir, type ServerProcess } from '../../helpers/process.ts';

interface Sent { title: string; size: number; key: string; markdown: boolean }

const cardsOf = (title: string, size: number) => Array.from({ length: size }, (_, j) => ({ front: `${title} q${j}`, back: `a${j}` }));

function markdownOf(title: string, size: number): string {
  const cards = cardsOf(title, size).map((c) => `## Front\n${c.front}\n\n## Back\n${c.back}`);
  return `---\nversion: 1\nlang: en\n---\n# ${title}\n\n${cards.join('\n\n---\n\n')}\n`;
}

function importRequest(base: string, token: string, s: Sent): Promise<Response> {
  return fetch(`${base}/decks/import`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': s.markdown ? 'text/markdown' : 'application/json', 'idempotency-key': s.key },
    body: s.markdown ? markdownOf(s.title, s.size) : JSON.stringify({ deck: { title: s.title, lang: 'en' }, cards: cardsOf(s.title, s.size) }),
  });
}

interface StoredDeck { id: string; title: string; cardCount: number; cards: { order: number; front: string }[] }

/** Waits (10 s at most) until nothing accepts connections on `port`: a draining server closed its listener. */
async function untilRefusingConnections(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (await new Promise<boolean>((resolve) => {
    const probe = net.connect(port, '127.0.0.1');
    probe.once('connect', () => { probe.destroy(); resolve(true); });
    probe.once('error', () => resolve(false));
  })) {
    assert.ok(Date.now() < deadline, 'the server kept accepting connections after SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every deck of the user, each with its full card list. */
async function allDecks(server: ServerProcess, token: string): Promise<StoredDeck[]> {
  const headers = { authorization: `Bearer ${token}` };
  const out: StoredDeck[] = [];
  let next: string | null = null;
  do {
    const res = await fetch(`${server.base}/decks?limit=100${next ? `&token=${encodeURIComponent(next)}` : ''}`, { headers });
    const page = await res.json() as { items: { id: string }[]; nextToken: string | null };
    for (const item of page.items) out.push(await (await fetch(`${server.base}/decks/${item.id}`, { headers })).json() as StoredDeck);
    next = page.nextToken;
  } while (next !== null);
  return out;
}

describe('crash safety', () => {
  const dirs: string[] = [];
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.kill();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('should keep every acknowledged import and no partial deck after SIGKILL during a stream of imports', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const { token } = await cliUserAndToken(dataDir, 'crash@example.com');
    const sent = new Map<string, Sent>();
    const acked = new Map<string, { deckId: string; text: string }>();

    // Two rounds: the second starts on the store the first kill left behind.
    for (let round = 0; round < 2; round++) {
      const server = await startServerProcess(dataDir, { DECK_LIMIT: 'none' });
      servers.push(server);
      let inFlight = 0;
      let stopped = false;
      const worker = async (w: number) => {
        for (let i = 0; !stopped; i++) {
          const title = `r${round}-w${w}-i${i}`;
          const size = ((i * 97 + w * 31 + round * 13) % 250) + 1;
          const request: Sent = { title, size, key: `crash-${title}-key`, markdown: i % 3 === 2 };
          sent.set(title, request);
          inFlight++;
          try {
            const res = await importRequest(server.base, token, request);
            const text = await res.text();
            assert.equal(res.status, 201, text);
            acked.set(title, { deckId: JSON.parse(text).deckId, text });
          } catch (error) {
            if (error instanceof assert.AssertionError) throw error;
            return; // the server is gone
          } finally {
            inFlight--;
          }
        }
      };
      // One client importing one deck after another, and three more at the same time.
      const ackedBefore = acked.size;
      const workers = [0, 1, 2, 3].map(worker);
      const deadline = Date.now() + 30_000;
      while (acked.size < ackedBefore + 25 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.ok(inFlight > 0, 'imports must be in flight when the server dies');
      await server.kill();
      stopped = true;
      await Promise.all(workers);
      assert.ok(acked.size >= ackedBefore + 25, 'the stream acknowledged too few imports before the deadline');
    }

    const server = await startServerProcess(dataDir);
    servers.push(server);
    const decks = await allDecks(server, token);
    const byId = new Map(decks.map((d) => [d.id, d]));
    for (const [title, { deckId }] of acked) {
      const deck = byId.get(deckId);
      assert.ok(deck, `acknowledged import ${title} (${deckId}) is missing after the crash`);
      assert.equal(deck.title, title);
    }
    for (const deck of decks) {
      const origin = sent.get(deck.title);
      assert.ok(origin, `deck ${deck.title} was never sent`);
      assert.equal(deck.cards.length, origin.size, `deck ${deck.title} is partial`);
      assert.equal(deck.cardCount, origin.size);
      assert.deepEqual(deck.cards.map((c) => c.front), cardsOf(deck.title, origin.size).map((c) => c.front));
      assert.deepEqual(deck.cards.map((c) => c.order), deck.cards.map((_, i) => i));
    }
    // An acknowledged import's stored response survives too: its retry replays it.
    for (const [title, first] of [...acked].slice(-3)) {
      const retry = await importRequest(server.base, token, sent.get(title) as Sent);
      assert.equal(retry.headers.get('idempotent-replayed'), 'true');
      assert.equal(await retry.text(), first.text);
    }
  });

  test('should finish in-flight requests on SIGTERM and exit 0', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const { token } = await cliUserAndToken(dataDir, 'drain@example.com');
    const server = await startServerProcess(dataDir);
    servers.push(server);

    // Each request sends its headers and waits for 100 Continue, so the server is already handling
    // it; the body follows only once the server has stopped accepting connections.
    const bodies = [10, 250, 40].map((size, i) => JSON.stringify({ deck: { title: `drained ${i}`, lang: 'en' }, cards: cardsOf(`drained ${i}`, size) }));
    const pending = bodies.map((body) => {
      const req = http.request(`${server.base}/decks/import`, {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue', connection: 'close' },
      });
      const continued = new Promise<void>((resolve) => req.once('continue', resolve));
      const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
        req.once('error', reject);
        req.once('response', (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (chunk: string) => { text += chunk; });
          res.once('end', () => resolve({ status: res.statusCode ?? 0, text }));
        });
      });
      return { req, body, continued, response };
    });
    await Promise.all(pending.map((p) => p.continued));

    server.child.kill('SIGTERM');
    await untilRefusingConnections(server.port);
    for (const p of pending) p.req.end(p.body);
    const responses = await Promise.all(pending.map((p) => p.response));
    for (const res of responses) assert.equal(res.status, 201, res.text);
    const exit = await server.exited;
    assert.equal(exit.code, 0, exit.stderr);

    const again = await startServerProcess(dataDir);
    servers.push(again);
    const decks = await allDecks(again, token);
    assert.deepEqual(decks.map((d) => d.cardCount).sort((a, b) => a - b), [10, 40, 250]);
  });

  test('should serve a request pipelined behind an in-flight one during the drain, not answer it outside the envelope', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const { token } = await cliUserAndToken(dataDir, 'pipelined@example.com');
    const server = await startServerProcess(dataDir);
    servers.push(server);
    const body = JSON.stringify({ deck: { title: 'first', lang: 'en' }, cards: cardsOf('first', 5) });
    const socket = net.connect(server.port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8').on('data', (chunk: string) => { received += chunk; });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write([
      'POST /api/v1/decks/import HTTP/1.1', 'Host: 127.0.0.1', `Authorization: Bearer ${token}`, 'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`, 'Expect: 100-continue', '', '',
    ].join('\r\n'));
    while (!received.includes('100 Continue')) await new Promise((resolve) => setTimeout(resolve, 10));

    server.child.kill('SIGTERM');
    await untilRefusingConnections(server.port);
    // The second request reaches the server only now, while it is closing.
    socket.write(`${body}GET /api/v1/whoami HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
    await closed;
    const statuses = [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
    assert.deepEqual(statuses, ['100', '201', '200'], received);
    assert.equal((await server.exited).code, 0);
  });
});
