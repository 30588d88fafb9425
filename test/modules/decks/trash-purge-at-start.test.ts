// The purges run when the server starts, not only an hour later: a server restarted more often
// than hourly (deploys, a crash loop) never purged the trash. A real server process on the run's
// store; the deck's deletion is dated 31 days back in the store between two starts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../../../src/db/database.ts';
import { dropStore, storeEnvFor } from '../../helpers/backend.ts';
import { cliUserAndToken, startServerProcess, tempDataDir, type ServerProcess } from '../../helpers/process.ts';
import { waitFor } from '../../scale/cluster.ts';

async function call(server: ServerProcess, token: string, method: string, path: string, json?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.base}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? null : JSON.parse(text) };
}

test('should purge a deck 30 days in the trash as soon as the server starts', async (t) => {
  const dataDir = tempDataDir();
  t.after(() => dropStore(dataDir));
  const { token } = await cliUserAndToken(dataDir, 'purge-at-start@example.com', 'decks:read,decks:write,decks:delete');
  const first = await startServerProcess(dataDir);
  const ids: string[] = [];
  try {
    for (const title of ['Deleted a month ago', 'Deleted yesterday']) {
      const made = await call(first, token, 'POST', '/decks/import', { deck: { title, lang: 'en' }, cards: [{ front: 'F', back: 'B' }] });
      assert.equal(made.status, 201);
      ids.push(made.body.deckId as string);
      assert.equal((await call(first, token, 'DELETE', `/decks/${made.body.deckId}`)).status, 204);
    }
  } finally {
    await first.kill();
  }
  const [old, recent] = ids;
  const store = await openStore({ dataDir, databaseUrl: storeEnvFor(dataDir).DATABASE_URL ?? null });
  const deckRows = async () => (await sql<{ id: string }>`select id from decks order by title`.execute(store.db)).rows.map((r) => r.id);
  try {
    await sql`update decks set deleted_at = ${new Date(Date.now() - 31 * 86_400_000).toISOString()} where id = ${old}`.execute(store.db);
    assert.deepEqual(await deckRows(), [old, recent]);

    const second = await startServerProcess(dataDir);
    t.after(() => second.kill());
    assert.deepEqual(await waitFor(20_000, deckRows, (rows) => rows.length === 1), [recent], 'purged at start');
    assert.equal((await call(second, token, 'POST', `/decks/${old}/restore`)).body.error.code, 'DECK_NOT_FOUND');
    assert.deepEqual((await call(second, token, 'GET', '/decks/trash')).body.decks.map((d: { id: string }) => d.id), [recent]);
  } finally {
    await store.close();
  }
});
