// Fault injection: Redis shut down, and the connection to PostgreSQL cut, while clients keep
// calling. The instance answers 503 with the envelope and Retry-After (never a 500, never a
// crash), writes nothing by halves, and serves fully again once the dependency is back.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { databaseUrlWithSchema, schemaForDataDir } from '../helpers/backend.ts';
import { cliUserAndToken, tempDataDir } from '../helpers/process.ts';
import { deckBody, type ApiResponse } from '../helpers/server.ts';
import { PrivateRedis, SKIP_UNLESS_POSTGRES_REDIS, discardStore, TcpProxy, healthz, startInstance, waitFor, type Instance } from './cluster.ts';

const CARDS = 5;

/** Clients calling in a loop (reads and imports) until stopped; every response is kept. */
function clientLoad(server: Instance, token: string, workers = 4) {
  const responses: { kind: 'read' | 'import'; res: ApiResponse }[] = [];
  let running = true;
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = 0; running; i++) {
      const kind = (w + i) % 2 === 0 ? 'import' : 'read';
      const res = kind === 'import'
        ? await server.api('POST', '/decks/import', { token, json: deckBody(CARDS, `load ${w}-${i}`) })
        : await server.api('GET', '/decks?limit=5', { token });
      responses.push({ kind, res });
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  });
  return {
    responses,
    seen: (status: number) => responses.filter((r) => r.res.status === status).length,
    async stop() {
      running = false;
      await Promise.all(loops);
      return responses;
    },
  };
}

function assertOnly503sBesidesSuccess(responses: { res: ApiResponse }[]): void {
  for (const { res } of responses) {
    assert.ok([200, 201, 503].includes(res.status), `unexpected ${res.status}: ${res.text}`);
    if (res.status === 503) {
      assert.equal(res.body.error.code, 'SERVICE_UNAVAILABLE');
      assert.ok(Number(res.headers.get('retry-after')) >= 1, 'a 503 carries Retry-After');
    }
  }
}

/** Every acknowledged import is stored whole, and no deck in the store is partial. */
async function assertNoPartialWrite(server: Instance, token: string, responses: { kind: string; res: ApiResponse }[]): Promise<void> {
  const ids = new Set<string>();
  let next: string | null = null;
  do {
    const page: ApiResponse = await server.api('GET', `/decks?limit=100${next ? `&nextToken=${encodeURIComponent(next)}` : ''}`, { token });
    assert.equal(page.status, 200);
    for (const item of page.body.items) ids.add(item.id);
    next = page.body.nextToken;
  } while (next);
  for (const { kind, res } of responses) {
    if (kind === 'import' && res.status === 201) assert.ok(ids.has(res.body.deckId), 'an acknowledged import is stored');
  }
  for (const id of ids) {
    const deck = await server.api('GET', `/decks/${id}`, { token });
    assert.equal(deck.body.cardCount, CARDS);
    assert.equal(deck.body.cards.length, CARDS);
  }
}

describe('fault injection', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  const dataDir = tempDataDir();
  let redis: PrivateRedis;
  let proxy: TcpProxy;
  let server: Instance;
  let token: string;
  let alive = true;

  before(async () => {
    const direct = new URL(process.env.TEST_DATABASE_URL as string);
    [redis, proxy] = await Promise.all([
      PrivateRedis.start(),
      TcpProxy.start({ host: direct.hostname, port: Number(direct.port || 5432) }),
    ]);
    const viaProxy = new URL(direct);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    server = await startInstance(dataDir, {
      DATABASE_URL: databaseUrlWithSchema(viaProxy.toString(), schemaForDataDir(dataDir)),
      REDIS_URL: redis.url,
      DECK_LIMIT: 'none',
    });
    void server.exited.then(() => { alive = false; });
    ({ token } = await cliUserAndToken(dataDir, `faults-${process.pid}@example.com`));
  });
  after(async () => {
    await server?.kill();
    await redis?.shutdown();
    await proxy?.cut();
    await discardStore(dataDir);
  });

  /** After the dependency returns: healthy, imports succeed again, only 503s meanwhile, no partial write. */
  async function assertRecovered(load: ReturnType<typeof clientLoad>): Promise<void> {
    assert.equal((await waitFor(15_000, () => healthz(server.url), (h) => h.status === 200)).status, 200);
    const before = load.responses.length;
    await waitFor(10_000, async () => load.responses.slice(before).filter((r) => r.res.status === 201).length, (n) => n >= 2);
    const responses = await load.stop();
    assert.ok(load.seen(503) > 0);
    assertOnly503sBesidesSuccess(responses);
    assert.ok(responses.slice(before).filter((r) => r.res.status === 201).length >= 2, 'imports succeed again');
    assert.ok(alive, 'the server process is still running');
    await assertNoPartialWrite(server, token, responses);
  }

  /** The load meets 503s within `ms`, and /healthz answers 503 naming what is down. */
  async function assertOutage(load: ReturnType<typeof clientLoad>, ms: number, checks: Record<string, 'up' | 'down'>): Promise<void> {
    await waitFor(ms, async () => load.seen(503), (n) => n >= 4);
    const health = await healthz(server.url);
    assert.equal(health.status, 503);
    assert.equal(health.body.error.code, 'SERVICE_UNAVAILABLE');
    assert.deepEqual(health.body.error.details.checks, checks);
    assert.ok(health.retryAfter);
  }

  test('should answer 503 while Redis is down, name it in /healthz, and recover when it returns', async () => {
    const load = clientLoad(server, token);
    await waitFor(10_000, async () => load.seen(200), (n) => n >= 4);
    await redis.shutdown();
    await assertOutage(load, 10_000, { database: 'up', redis: 'down' });

    await redis.restart();
    await assertRecovered(load);
  });

  test('should answer 503 while PostgreSQL is cut off, write nothing by halves, and recover when it returns', async () => {
    const load = clientLoad(server, token);
    await waitFor(10_000, async () => load.seen(201), (n) => n >= 4);
    await proxy.cut();
    await assertOutage(load, 15_000, { database: 'down', redis: 'up' });

    await proxy.restore();
    await assertRecovered(load);
  });
});
