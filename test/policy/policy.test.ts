// The per-call policy as functions any surface calls outside an API route hook: a bucket named by
// its descriptor (the web editor's card writes), shared keys read with the admission, and the
// protected resource each 401 and 403 names (the MCP endpoint names its own).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isAppError } from '../../src/errors.ts';
import { protectedResource } from '../../src/policy/policy.ts';
import { createDeck, manualClock, buildForSuite } from '../helpers/server.ts';

const MCP_METADATA = 'https://flash.example.com/.well-known/oauth-protected-resource/mcp';

describe('the per-call policy', () => {
  // A still clock: the minute window cannot turn between the calls that spend it.
  const time = manualClock('2030-06-01T09:00:10.000Z');
  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '3' }, overrides: { clock: time.clock } });

  test("should count calls in the bucket a descriptor names, apart from the user's token", async () => {
    const policy = suite.server.app.policy;
    const bucket = { key: `cards:${suite.user.userId}`, limits: { perMinute: 2, perDay: 5 } };
    const first = await policy.admit(bucket, null, []);
    assert.equal(first.rateLimitPolicy, '"minute";q=2;w=60, "day";q=5;w=86400');
    assert.equal(first.rateLimit, '"minute";r=1;t=50');
    await policy.admit(bucket, null, []);
    await assert.rejects(policy.admit(bucket, null, []), (error) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, 'RATE_LIMITED');
      assert.equal(error.headers['Retry-After'], '50');
      return true;
    });
    const who = await suite.server.api('GET', '/whoami', { token: suite.user.token });
    assert.equal(who.status, 200);
    assert.equal(who.headers.get('ratelimit'), '"minute";r=2;t=50');
  });

  test("should give the web editor's card writes a bucket of 120 per minute and 5000 per day per user", async () => {
    const bucket = suite.server.app.policy.cardWriteBucket({ userId: suite.user.userId });
    assert.deepEqual(bucket.limits, { perMinute: 120, perDay: 5000 });
    const admitted = await suite.server.app.policy.admit(bucket, null, []);
    assert.equal(admitted.rateLimitPolicy, '"minute";q=120;w=60, "day";q=5000;w=86400');
    assert.notEqual(suite.server.app.policy.cardWriteBucket({ userId: 'usr_other' }).key, bucket.key);
  });

  test("should read the shared keys a call names in its admission: a deck's published version", async () => {
    const { token } = await suite.server.user();
    const { deckId, version } = await createDeck(suite.server, token, 1);
    const board = suite.server.app.services.deckVersions;
    const key = board.keyOf(deckId);
    const bucket = { key: 'test:reads', limits: { perMinute: 100, perDay: 100 } };
    if (key === null) {
      // In-process there is nothing shared: every key reads as unset.
      assert.deepEqual((await suite.server.app.policy.admit(bucket, null, ['a', 'b'])).values, [null, null]);
      return;
    }
    const admitted = await suite.server.app.policy.admit(bucket, null, [key, 'deck:v:dck_nothing']);
    assert.equal(admitted.values.length, 2);
    assert.equal(board.parse(admitted.values[0] ?? null), version);
    assert.equal(admitted.values[1], null);
  });

  test('should name the protected resource it is given in 401 and 403 challenges', async () => {
    const mcp = protectedResource('https://flash.example.com/mcp', MCP_METADATA);
    const { refused } = await suite.server.app.policy.authenticateNow(undefined, '192.0.2.10', mcp);
    assert.ok(refused);
    assert.equal(refused.code, 'UNAUTHORIZED');
    assert.equal(refused.headers['WWW-Authenticate'], `Bearer resource_metadata="${MCP_METADATA}"`);
    const verified = await suite.server.app.policy.authenticateNow(`Bearer ${suite.user.token}`, '192.0.2.10', mcp);
    assert.equal(verified.refused, null);
    const principal = verified.principal;
    assert.equal(principal.userId, suite.user.userId);
    assert.equal(principal.credentialId, suite.user.tokenId);
    assert.throws(() => suite.server.app.policy.requireScope({ ...principal, scopes: ['decks:read'] }, 'reviews:write', mcp), (error) => {
      assert.ok(isAppError(error));
      assert.equal(error.code, 'FORBIDDEN');
      assert.equal(error.headers['WWW-Authenticate'], `Bearer error="insufficient_scope", scope="reviews:write", resource_metadata="${MCP_METADATA}"`);
      return true;
    });
  });
});
