// Two real server processes on two ports, sharing one PostgreSQL schema and one Redis: what one
// instance does, the other sees, and limits hold across both.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { VERSION_TTL_SECONDS } from '../../src/stores/version-board/version-board.ts';
import { redisNamespaceFor, storeEnvFor } from '../helpers/backend.ts';
import { cli, cliUserAndToken, tempDataDir } from '../helpers/process.ts';
import { deckBody } from '../helpers/server.ts';
import { SKIP_UNLESS_POSTGRES_REDIS, discardStore, startInstance, waitFor, type Instance } from './cluster.ts';

let emails = 0;
const newEmail = () => `scale${++emails}-${process.pid}@example.com`;

describe('two instances on one PostgreSQL and one Redis', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  const dataDir = tempDataDir();
  let a: Instance;
  let b: Instance;
  // Behind one proxy, as deployed: one PUBLIC_URL. Started together on an empty schema, so both
  // migrate at once, which must be safe.
  const env = { PUBLIC_URL: 'https://flashdeck.example' };
  before(async () => { [a, b] = await Promise.all([startInstance(dataDir, env), startInstance(dataDir, env)]); });
  after(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await discardStore(dataDir);
  });

  test('should create exactly one deck from one Idempotency-Key sent to both instances at once', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const headers = { 'idempotency-key': 'scale-once' };
    const responses = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).api('POST', '/decks/import', { token, json: deckBody(5), headers })));
    for (const res of responses) {
      assert.ok(res.status === 201 || (res.status === 409 && res.body.error.code === 'IDEMPOTENCY_KEY_IN_USE'), `${res.status} ${res.text}`);
    }
    const created = responses.filter((r) => r.status === 201);
    assert.ok(created.length >= 1);
    assert.equal(new Set(created.map((r) => r.body.deckId)).size, 1, 'every 201 names the same deck');
    for (const server of [a, b]) {
      const list = await server.api('GET', '/decks', { token });
      assert.deepEqual(list.body.items.map((d: { id: string }) => d.id), [created[0]?.body.deckId]);
    }
    const replay = await a.api('POST', '/decks/import', { token, json: deckBody(5), headers });
    assert.equal(replay.status, 201);
    assert.equal(replay.headers.get('idempotent-replayed'), 'true');
    assert.equal(replay.body.deckId, created[0]?.body.deckId);
  });

  test('should refuse on one instance, within 5 seconds, a token revoked with the CLI while both run', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const who = await a.api('GET', '/whoami', { token });
    assert.equal((await b.api('GET', '/whoami', { token })).status, 200);
    await cli(['tokens', 'revoke', who.body.token.id], { DATA_DIR: dataDir });
    for (const server of [a, b]) {
      const res = await waitFor(5000, () => server.api('GET', '/whoami', { token }), (r) => r.status === 401);
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, 'TOKEN_REVOKED');
    }
  });

  test('should never take a deck over 250 cards nor lose a card under 40 parallel appends spread over both', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const created = await a.api('POST', '/decks/import', { token, json: deckBody(220) });
    assert.equal(created.status, 201);
    const deckId = created.body.deckId as string;
    const responses = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).api('POST', `/decks/${deckId}/cards`, {
      token, json: { cards: [{ front: `parallel ${i}`, back: `answer ${i}` }] },
    })));
    const accepted = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    assert.equal(accepted.length, 30);
    for (const res of refused) assert.equal(res.body.error.code, 'TOO_MANY_CARDS', res.text);
    const deck = await b.api('GET', `/decks/${deckId}`, { token });
    assert.equal(deck.body.cardCount, 250);
    assert.equal(deck.body.cards.length, 250);
    assert.deepEqual(deck.body.cards.map((c: { order: number }) => c.order), Array.from({ length: 250 }, (_, i) => i));
    const stored = new Set(deck.body.cards.map((c: { id: string }) => c.id));
    for (const res of accepted) assert.ok(stored.has(res.body.cards[0].id), 'an acknowledged card is in the deck');
  });

  test('should serve one store from both instances: a deck written on one is read, byte for byte, on the other', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const created = await b.api('POST', '/decks/import', { token, json: deckBody(3, 'Shared') });
    const [fromA, fromB] = await Promise.all([a, b].map((s) => s.api('GET', `/decks/${created.body.deckId}`, { token })));
    assert.equal(fromA?.status, 200);
    assert.equal(fromA?.text, fromB?.text);
  });

  test('should show every write made through one instance on the very next read through the other', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const created = await a.api('POST', '/decks/import', { token, json: deckBody(3, 'Fresh') });
    const deckId = created.body.deckId as string;
    const path = `/decks/${deckId}`;
    // Both instances hold the first version's bytes before each write.
    const readBoth = async () => {
      for (const server of [a, b]) assert.equal((await server.api('GET', path, { token })).status, 200);
    };
    const writes: [string, (writer: Instance) => Promise<{ version: string; check: (deck: any) => void }>][] = [
      ['PATCH deck', async (w) => {
        const res = await w.api('PATCH', path, { token, json: { title: 'Renamed' } });
        return { version: res.body.version, check: (d) => assert.equal(d.title, 'Renamed') };
      }],
      ['append', async (w) => {
        const res = await w.api('POST', `${path}/cards`, { token, json: { cards: [{ front: 'Added', back: 'Card' }] } });
        return { version: res.body.version, check: (d) => assert.equal(d.cards.at(-1).front, 'Added') };
      }],
      ['PATCH card', async (w) => {
        const deck = await w.api('GET', path, { token });
        await w.api('PATCH', `${path}/cards/${deck.body.cards[0].id}`, { token, json: { back: 'Edited' } });
        const after = await w.api('GET', path, { token });
        return { version: after.body.version, check: (d) => assert.equal(d.cards[0].back, 'Edited') };
      }],
      ['import update', async (w) => {
        const res = await w.api('POST', `/decks/import?mode=update&targetDeckId=${deckId}`, { token, json: deckBody(2, 'Replaced') });
        return { version: res.body.version, check: (d) => assert.equal(d.title, 'Replaced') };
      }],
    ];
    for (const [name, write] of writes) {
      for (const [writer, reader] of [[a, b], [b, a]] as const) {
        await readBoth();
        const { version, check } = await write(writer);
        const read = await reader.api('GET', path, { token });
        assert.equal(read.body.version, version, `${name}: the other instance serves the new version`);
        check(read.body);
      }
    }
  });

  test('should serve within 5 seconds a deck version committed but never published (its writer died first)', async () => {
    const { token } = await cliUserAndToken(dataDir, newEmail());
    const created = await a.api('POST', '/decks/import', { token, json: deckBody(2, 'Before') });
    const path = `/decks/${created.body.deckId}`;
    for (const server of [a, b]) assert.equal((await server.api('GET', path, { token })).body.title, 'Before');
    // A write that committed and then died before publishing: only the database knows it.
    const version = new Date(Date.parse(created.body.version) + 1000).toISOString();
    const db = new pg.Client({ connectionString: storeEnvFor(dataDir).DATABASE_URL });
    await db.connect();
    try {
      await db.query('update decks set title = $1, updated_at = $2 where id = $3', ['After', version, created.body.deckId]);
    } finally {
      await db.end();
    }
    const started = Date.now();
    for (const server of [a, b]) {
      const read = await waitFor(VERSION_TTL_SECONDS * 1000 + 1000, () => server.api('GET', path, { token }), (r) => r.body.version === version);
      assert.equal(read.body.version, version);
      assert.equal(read.body.title, 'After');
    }
    assert.ok(Date.now() - started <= VERSION_TTL_SECONDS * 1000 + 1500);
  });
});

describe('instances starting at once', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  test('should migrate an empty schema once when four instances start together', async () => {
    const dataDir = tempDataDir();
    try {
      const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...storeEnvFor(dataDir) });
      const apps = await Promise.all(Array.from({ length: 4 }, () => buildApp(config, { logger: false, redisNamespace: redisNamespaceFor(dataDir) })));
      const user = await apps[0]?.admin.addUser(newEmail());
      assert.ok(user);
      for (const app of apps) {
        const res = await app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(res.statusCode, 200);
      }
      await Promise.all(apps.map((app) => app.close()));
    } finally {
      await discardStore(dataDir, redisNamespaceFor(dataDir));
    }
  });
});
