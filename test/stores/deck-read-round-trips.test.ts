// On PostgreSQL + Redis a deck read this instance has rendered costs one Redis command: the
// admission script counts the call and reads the deck's published version in the same round trip
// (src/stores/rate-limits/redis.ts), and nothing else of the read goes to Redis.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { redisNamespaceFor } from '../helpers/backend.ts';
import { createDeck, buildForSuite } from '../helpers/server.ts';
import { SKIP_UNLESS_POSTGRES_REDIS } from '../scale/cluster.ts';

describe('Redis round trips of a deck read', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  // monitor() opens a connection of its own beside the client's: both are closed after.
  const client = new Redis(process.env.TEST_REDIS_URL as string, { lazyConnect: true });
  let monitor: Redis | undefined;
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    monitor?.disconnect();
    client.disconnect();
  });
  const suite = buildForSuite();

  test('should send one command to Redis per read of a deck the instance holds', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 3);
    const versionKey = suite.server.app.services.deckVersions.keyOf(deckId);
    assert.ok(versionKey);
    // The first read renders and publishes; the reads after it are the hot path.
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).status, 200);

    // Every command this server sends names a key under its own namespace; a script's inner
    // commands (source "lua") are not round trips.
    const namespace = redisNamespaceFor(suite.server.dataDir);
    const seen: string[][] = [];
    monitor = await client.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua' && args.some((arg) => arg.startsWith(namespace))) seen.push(args);
    });
    const reads = 3;
    for (let i = 0; i < reads; i++) assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 300));

    assert.equal(seen.length, reads, JSON.stringify(seen));
    for (const args of seen) {
      assert.match(args[0] ?? '', /^evalsha$/i);
      assert.ok(args.includes(namespace + versionKey), 'the command reads the published version');
      assert.ok(args.some((arg) => arg.includes(`rl:tok:minute:${suite.user.tokenId}:`)), 'the same command counts the call');
    }
  });
});
