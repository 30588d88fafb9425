// The deck versions every instance reads from Redis (src/stores/version-board/redis.ts): an older
// version never replaces a newer one, and a published version is trusted for a bounded time.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { VERSION_TTL_SECONDS } from '../../src/stores/version-board/version-board.ts';
import { RedisVersionBoard } from '../../src/stores/version-board/redis.ts';
import { SKIP_UNLESS_POSTGRES_REDIS } from '../scale/cluster.ts';

describe('deck versions in Redis', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  const namespace = `flashdeck-test:versions-${randomBytes(4).toString('hex')}:`;
  let client: Redis;
  let board: RedisVersionBoard;
  const errors: unknown[] = [];
  // What an instance reads: the key's value, read with the call's admission.
  const current = async (deckId: string) => board.parse(await client.get(namespace + board.keyOf(deckId)));

  before(async () => {
    client = new Redis(process.env.TEST_REDIS_URL as string, { lazyConnect: true });
    await client.connect();
    board = new RedisVersionBoard(client, namespace, 'deck', (error) => errors.push(error));
  });
  after(async () => {
    const keys = await client.keys(`${namespace}*`);
    if (keys.length > 0) await client.del(...keys);
    await client.quit();
  });

  test('should know no version of a deck nothing was published for', async () => {
    assert.equal(await current('dck_unknown'), null);
  });

  test('should keep the newer version when an older one is published after it (a read racing a write)', async () => {
    await board.publish('dck_race', '2026-01-01T00:00:00.002Z');
    await board.publish('dck_race', '2026-01-01T00:00:00.001Z');
    assert.equal(await current('dck_race'), '2026-01-01T00:00:00.002Z');
    await board.publish('dck_race', '2026-01-01T00:00:01.000Z');
    assert.equal(await current('dck_race'), '2026-01-01T00:00:01.000Z');
    assert.deepEqual(errors, []);
  });

  test(`should trust a published version for at most ${VERSION_TTL_SECONDS} seconds`, async () => {
    await board.publish('dck_ttl', '2026-01-01T00:00:00.000Z');
    const ttl = await client.ttl(namespace + board.keyOf('dck_ttl'));
    assert.ok(ttl > 0 && ttl <= VERSION_TTL_SECONDS, `ttl ${ttl}`);
  });

  test('should report, not throw, a version it could not publish', async () => {
    const offline = new Redis(process.env.TEST_REDIS_URL as string, { lazyConnect: true, enableOfflineQueue: false });
    const failing = new RedisVersionBoard(offline, namespace, 'deck', (error) => errors.push(error));
    await failing.publish('dck_offline', '2026-01-01T00:00:00.000Z');
    assert.equal(errors.length, 1);
    errors.length = 0;
    offline.disconnect();
  });
});
