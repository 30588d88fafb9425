// The authorization server is made on first use (src/surfaces/authorization-server.ts): once
// for any number of concurrent first requests, and again after a failed attempt rather than
// keeping the failure.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Provider from 'oidc-provider';
import { AuthorizationServer } from '../../../src/surfaces/authorization-server.ts';

function fakeProvider(): Provider {
  const handler = () => {};
  return { callback: () => handler } as unknown as Provider;
}

test('should make the provider once for concurrent first requests, and not before the first', async () => {
  let made = 0;
  const server = new AuthorizationServer(async () => {
    made++;
    await new Promise((resolve) => setTimeout(resolve, 10));
    return fakeProvider();
  });
  assert.equal(made, 0);
  const [a, b, handler] = await Promise.all([server.provider(), server.provider(), server.handler()]);
  assert.equal(made, 1);
  assert.equal(a, b);
  assert.equal(handler, a.callback());
  assert.equal(await server.handler(), handler);
  assert.equal(made, 1);
});

test('should report a failed attempt to make the provider and try again on the next request', async () => {
  let attempts = 0;
  const reported: unknown[] = [];
  const server = new AuthorizationServer(async () => {
    attempts++;
    if (attempts === 1) throw new Error('signing key not readable');
    return fakeProvider();
  }, (error) => reported.push(error));
  await assert.rejects(server.provider(), /signing key not readable/);
  assert.equal(reported.length, 1);
  assert.match(String(reported[0]), /signing key not readable/);
  const provider = await server.provider();
  assert.equal(attempts, 2);
  assert.equal(await server.provider(), provider);
});
