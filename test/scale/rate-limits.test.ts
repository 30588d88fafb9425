// Per-token limits are counted in Redis, so a client spreading its calls over several instances
// gets exactly the limit, not the limit per instance.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cliUserAndToken, tempDataDir } from '../helpers/process.ts';
import { SKIP_UNLESS_POSTGRES_REDIS, discardStore, startInstance, type Instance } from './cluster.ts';

const PER_MINUTE = 20;

/** Fixed UTC windows: start a burst early in a minute so it cannot straddle two windows. */
async function awayFromMinuteEnd(): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second >= 45) await new Promise((resolve) => setTimeout(resolve, (61 - second) * 1000));
}

describe('rate limits across two instances', { skip: SKIP_UNLESS_POSTGRES_REDIS }, () => {
  const dataDir = tempDataDir();
  let a: Instance;
  let b: Instance;
  before(async () => {
    const env = { RATE_LIMIT_PER_MINUTE: String(PER_MINUTE) };
    [a, b] = await Promise.all([startInstance(dataDir, env), startInstance(dataDir, env)]);
  });
  after(async () => {
    await Promise.all([a?.kill(), b?.kill()]);
    await discardStore(dataDir);
  });

  test(`should allow exactly ${PER_MINUTE} calls per minute to one token whichever instance serves them`, async () => {
    const { token } = await cliUserAndToken(dataDir, `limits-${process.pid}@example.com`);
    await awayFromMinuteEnd();
    const responses = await Promise.all(Array.from({ length: 2 * PER_MINUTE }, (_, i) => (i % 2 ? a : b).api('GET', '/whoami', { token })));
    const allowed = responses.filter((r) => r.status === 200);
    const refused = responses.filter((r) => r.status !== 200);
    assert.equal(allowed.length, PER_MINUTE);
    for (const res of refused) {
      assert.equal(res.status, 429);
      assert.equal(res.body.error.code, 'RATE_LIMITED');
      assert.ok(Number(res.headers.get('retry-after')) >= 1);
    }
    // One shared counter: the remaining counts the two instances handed out are 0..N-1, once each.
    const remaining = allowed.map((r) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1])).sort((x, y) => x - y);
    assert.deepEqual(remaining, Array.from({ length: PER_MINUTE }, (_, i) => i));
    // The limit is spent on both instances.
    assert.equal((await a.api('GET', '/whoami', { token })).status, 429);
    assert.equal((await b.api('GET', '/whoami', { token })).status, 429);
  });
});
