// The password hasher: at most `concurrency` scrypt runs at once and `queue` waiting, the next one
// refused at once with SERVICE_UNAVAILABLE and Retry-After; hashes stored with other parameters
// (older ones) still verify.
import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';
import { PasswordHasher } from '../../../src/modules/users/password.ts';

describe('PasswordHasher', () => {
  test('should run 2 and queue 2 of 6 concurrent checks and refuse the other 2 at once with SERVICE_UNAVAILABLE', async () => {
    const hasher = new PasswordHasher({ concurrency: 2, queue: 2 });
    const stored = await hasher.hash('correct horse battery');
    const before = hasher.computed;
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => hasher.verify('wrong password', stored)));
    const refused = outcomes.filter((o) => o.status === 'rejected');
    assert.equal(refused.length, 2);
    for (const r of refused) {
      const error = (r).reason as AppError;
      assert.equal(error.code, 'SERVICE_UNAVAILABLE');
      assert.match(error.headers['Retry-After'] ?? '', /^[1-9]\d*$/);
    }
    assert.equal(hasher.computed - before, 4);
    // The queue drained: the next check runs.
    assert.equal(await hasher.verify('correct horse battery', stored), true);
  });

  test('should verify a hash stored with other scrypt parameters', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('an older password', salt, 32, { N: 2 ** 14, r: 8, p: 1 });
    const older = ['scrypt', 2 ** 14, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    const hasher = new PasswordHasher();
    assert.equal(await hasher.verify('an older password', older), true);
    assert.equal(await hasher.verify('another password', older), false);
  });

  test('should hash at N=2^15 by default, at N=2^PASSWORD_HASH_COST when set lower, and refuse a cost above 15', async () => {
    assert.match(await new PasswordHasher().hash('correct horse battery'), /^scrypt\$32768\$8\$3\$/);
    const cheap = new PasswordHasher(loadConfig({ PASSWORD_HASH_COST: '10' }).hashing);
    const stored = await cheap.hash('correct horse battery');
    assert.match(stored, /^scrypt\$1024\$8\$3\$/);
    assert.equal(await new PasswordHasher().verify('correct horse battery', stored), true);
    assert.equal(loadConfig({}).hashing.cost, 15);
    assert.throws(() => loadConfig({ PASSWORD_HASH_COST: '16' }), (error) => error instanceof ConfigError && error.message.includes('PASSWORD_HASH_COST'));
  });
});
