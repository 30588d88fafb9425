// The per-call policy authenticates through pluggable verifiers: a second verifier, for tokens of
// another shape (as OAuth access tokens will be), authenticates calls to the real API routes with
// the same scopes, hints, rate limits and activity as a personal access token.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { AppError } from '../../src/errors.ts';
import type { Principal } from '../../src/modules/identity/principal.ts';
import type { TokenVerifier, Verification } from '../../src/modules/identity/verifier.ts';
import { createDeck, manualClock, type TestUser, buildForSuite } from '../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';
const METADATA = `resource_metadata="${PUBLIC_URL}/.well-known/oauth-protected-resource"`;

/** Grants by token: `tst_<grant>`. Filled by the test once its user exists. */
const grants = new Map<string, { principal: Principal; revoked: boolean }>();
/** The resources the verifier was asked about, as an OAuth verifier checks a token's audience. */
const audiences = new Set<string>();

const testVerifier: TokenVerifier = {
  recognises: (token) => token.startsWith('tst_'),
  verify: async (token, resource): Promise<Verification> => {
    audiences.add(resource);
    const grant = grants.get(token);
    if (grant === undefined) return { principal: null, refused: new AppError('UNAUTHORIZED', 'Unknown test grant') };
    if (grant.revoked) return { principal: grant.principal, refused: new AppError('TOKEN_REVOKED', 'The grant was revoked') };
    return { principal: grant.principal, refused: null };
  },
};

function grantFor(user: TestUser, id: string, scopes: Principal['scopes']): Principal {
  return { userId: user.userId, source: 'oauth', credentialId: id, name: 'Test client', prefix: 'tst', scopes, bucket: `grant:${id}` };
}

describe('a second token verifier', () => {
  // A still clock: the minute window cannot turn between the calls that spend it.
  const time = manualClock('2030-05-01T10:00:05.000Z');
  let deckId: string;
  const suite = buildForSuite({ env: { PUBLIC_URL, RATE_LIMIT_PER_MINUTE: '3' }, overrides: { clock: time.clock, verifiers: () => [testVerifier] } });
  before(async () => {
    grants.set('tst_reader', { principal: grantFor(suite.user, 'grant_reader', ['decks:read']), revoked: false });
    grants.set('tst_other', { principal: grantFor(suite.user, 'grant_other', ['decks:read']), revoked: false });
    grants.set('tst_revoked', { principal: grantFor(suite.user, 'grant_revoked', ['decks:read']), revoked: true });
    ({ deckId } = await createDeck(suite.server, suite.user.token, 2));
  });

  test('should authenticate its tokens on a real route and name the grant in GET /whoami', async () => {
    const who = await suite.server.api('GET', '/whoami', { token: 'tst_reader' });
    assert.equal(who.status, 200, who.text);
    assert.deepEqual(who.body, { userId: suite.user.userId, scopes: ['decks:read'], source: 'oauth', token: { id: 'grant_reader', name: 'Test client', prefix: 'tst' } });
    const deck = await suite.server.api('GET', `/decks/${deckId}`, { token: 'tst_reader' });
    assert.equal(deck.status, 200);
    assert.equal(deck.body.cardCount, 2);
    assert.match(deck.headers.get('ratelimit-policy') ?? '', /"minute";q=3;w=60/);
    assert.deepEqual([...audiences], [`${PUBLIC_URL}/api/v1`], 'the verifier is told which resource the call is for');
  });

  test('should hold its principal to its scopes, with the insufficient_scope hint', async () => {
    const res = await suite.server.api('PATCH', `/decks/${deckId}`, { token: 'tst_other', json: { title: 'Renamed' } });
    assert.equal(res.status, 403);
    assert.equal(res.body.error.code, 'FORBIDDEN');
    assert.match(res.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="decks:write"/);
  });

  test('should pass on its refusals with the resource metadata hint', async () => {
    for (const [token, code] of [['tst_unknown', 'UNAUTHORIZED'], ['tst_revoked', 'TOKEN_REVOKED']] as const) {
      const res = await suite.server.api('GET', '/whoami', { token });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, code);
      const challenge = res.headers.get('www-authenticate') ?? '';
      assert.ok(challenge.includes('error="invalid_token"') && challenge.includes(METADATA), challenge);
    }
  });

  test("should count its calls in the grant's own bucket, apart from the user's personal access token", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await suite.server.api('GET', '/decks', { token: suite.user.token })).status);
    assert.equal(statuses.at(-1), 429, `the token's fourth call of the minute: ${statuses}`);
    const fresh = grantFor(suite.user, 'grant_fresh', ['decks:read']);
    grants.set('tst_fresh', { principal: fresh, revoked: false });
    const res = await suite.server.api('GET', '/decks', { token: 'tst_fresh' });
    assert.equal(res.status, 200, 'the grant has its own bucket');
    assert.match(res.headers.get('ratelimit') ?? '', /"minute";r=2;/);
  });

  test('should leave personal access tokens to their own verifier', async () => {
    const who = await suite.server.api('GET', '/whoami', { token: (await suite.server.user()).token });
    assert.equal(who.status, 200);
    assert.equal(who.body.source, 'pat');
  });
});
