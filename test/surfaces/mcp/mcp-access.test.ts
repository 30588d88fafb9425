// Who may call the MCP endpoint, from where, and how often: the same tokens, scopes, ownership
// rules and rate-limit bucket as the API; 401 naming the endpoint's own RFC 9728 metadata; a foreign
// Origin refused; an OAuth-style token bound to one resource refused at the other.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { AppError } from '../../../src/errors.ts';
import type { Principal } from '../../../src/modules/identity/principal.ts';
import type { TokenVerifier } from '../../../src/modules/identity/verifier.ts';
import { connectMcp, INITIALIZE, rawMcp, TOOL_OPERATIONS, ToolResultChecker, type McpSession } from '../../helpers/mcp.ts';
import { build, createDeck, manualClock, type TestUser, buildForSuite } from '../../helpers/server.ts';

const PUBLIC_URL = 'https://flash.example.com';
const MCP_METADATA = `${PUBLIC_URL}/.well-known/oauth-protected-resource/mcp`;
/** DECISIONS "MCP": the 401 names the default scopes, the four OAuth scopes. */
const DEFAULT_SCOPES = 'decks:read decks:write reviews:read reviews:write';

/** Tokens bound to one resource, as OAuth access tokens are (RFC 8707): `bound_<resource path>`. */
function boundVerifier(user: () => TestUser): TokenVerifier {
  return {
    recognises: (token) => token.startsWith('bound_'),
    verify: async (token, resource) => {
      const principal: Principal = {
        userId: user().userId, source: 'oauth', credentialId: `grant_${token}`, name: 'Bound client', prefix: 'bound', scopes: ['decks:read'], bucket: `grant:${token}`,
      };
      const audience = token === 'bound_mcp' ? `${PUBLIC_URL}/mcp` : `${PUBLIC_URL}/api/v1`;
      if (audience !== resource) return { principal: null, refused: new AppError('UNAUTHORIZED', 'The access token is not for this resource') };
      return { principal, refused: null };
    },
  };
}

describe('MCP access', () => {
  const time = manualClock('2030-05-01T10:00:05.000Z');
  let deckId: string;
  let checker: ToolResultChecker;
  const sessions: McpSession[] = [];
  const connect = async (token: string) => {
    const session = await connectMcp(suite.server, token, { checker });
    sessions.push(session);
    return session;
  };

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    for (const session of sessions) await session.close();
  });
  const suite = buildForSuite({ env: { PUBLIC_URL }, overrides: { clock: time.clock, verifiers: () => [boundVerifier(() => suite.user)] }, socket: true });
  before(async () => {
    checker = new ToolResultChecker(suite.server.app.apiDocument());
    ({ deckId } = await createDeck(suite.server, suite.user.token, 2));
  });

  test('should serve its RFC 9728 metadata and name it, with the default scopes, in a 401 for a missing or bad token', async () => {
    const metadata = await fetch(`${suite.server.url}/.well-known/oauth-protected-resource/mcp`);
    assert.equal(metadata.status, 200);
    assert.equal(((await metadata.json()) as any).resource, `${PUBLIC_URL}/mcp`);

    const missing = await rawMcp(suite.server, INITIALIZE);
    assert.equal(missing.status, 401);
    assert.equal(missing.headers.get('www-authenticate'), `Bearer scope="${DEFAULT_SCOPES}", resource_metadata="${MCP_METADATA}"`);
    const bad = await rawMcp(suite.server, INITIALIZE, { authorization: 'Bearer svc_pat_nope_nope' });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers.get('www-authenticate'), `Bearer error="invalid_token", scope="${DEFAULT_SCOPES}", resource_metadata="${MCP_METADATA}"`);
    const body = (await bad.json()) as any;
    assert.equal(body.error.data.error.code, 'UNAUTHORIZED', 'the API envelope in the JSON-RPC error');
    await assert.rejects(connectMcp(suite.server, 'svc_pat_nope_nope'), /401|Unauthorized/i, "the SDK's client sees the 401");
  });

  test('should refuse a request from a foreign Origin with 403, and take one from its own', async () => {
    const foreign = await rawMcp(suite.server, INITIALIZE, { authorization: `Bearer ${suite.user.token}`, origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as any).error.data.error.code, 'FORBIDDEN');
    const own = await rawMcp(suite.server, INITIALIZE, { authorization: `Bearer ${suite.user.token}`, origin: PUBLIC_URL });
    assert.equal(own.status, 200);
  });

  test('should refuse GET and DELETE with 405 (stateless) and an unknown MCP-Protocol-Version with 400', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${suite.server.url}/mcp`, { method, headers: { accept: 'text/event-stream', authorization: `Bearer ${suite.user.token}` } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      // The API's envelope for a 405, as the API's own 405 carries it (code, details.allowed).
      const { error } = ((await res.json()) as { error: { data: { error: { code: string; details: unknown; requestId: string } } } });
      assert.equal(error.data.error.code, 'METHOD_NOT_ALLOWED', method);
      assert.deepEqual(error.data.error.details, { allowed: ['POST'] }, method);
      assert.equal(error.data.error.requestId, res.headers.get('x-request-id'), method);
    }
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const unknown = await rawMcp(suite.server, list, { authorization: `Bearer ${suite.user.token}`, 'mcp-protocol-version': '1999-01-01' });
    assert.equal(unknown.status, 400);
    const known = await rawMcp(suite.server, list, { authorization: `Bearer ${suite.user.token}`, 'mcp-protocol-version': '2025-06-18' });
    assert.equal(known.status, 200);
    assert.equal(((await known.json()) as any).result.tools.length, Object.keys(TOOL_OPERATIONS).length);
  });

  test('should refuse a tool without its scope with FORBIDDEN, whatever the deck', async () => {
    const reader = await connect((await suite.server.token(suite.user.email, ['decks:read'])).token);
    const res = await reader.call('append_cards', { deckId: 'dck_anything', idempotencyKey: 'scope-test-1', cards: [{ front: 'Q', back: 'A' }] });
    assert.equal(res.isError, true);
    const { requestId, ...error } = res.body.error;
    assert.deepEqual(error, { code: 'FORBIDDEN', message: 'This call needs the decks:write scope', details: { requiredScope: 'decks:write' } });
    assert.match(requestId, /^[0-9a-f-]{36}$/, "the call's request id, as in the API's envelope");
    assert.equal((await reader.call('get_deck', { deckId })).isError, undefined, 'its own scope still works');
  });

  test("should answer another user's deck as the API does: DECK_FORBIDDEN in the path, DECK_NOT_FOUND by reference", async () => {
    const other = await suite.server.user();
    const mcp = await connect(other.token);
    const read = await mcp.call('get_deck', { deckId });
    assert.equal(read.body.error.code, 'DECK_FORBIDDEN');
    const api = await suite.server.api('GET', `/decks/${deckId}`, { token: other.token });
    // The same envelope; each call has its own request id.
    assert.deepEqual({ ...read.body.error, requestId: null }, { ...api.body.error, requestId: null });
    const review = await mcp.call('start_review', { deckId });
    assert.equal(review.body.error.code, 'DECK_NOT_FOUND');
    const replace = await mcp.call('import_deck', { mode: 'update', targetDeckId: deckId, deck: { title: 'Mine now' }, cards: [{ front: 'Q', back: 'A' }] });
    assert.equal(replace.body.error.code, 'DECK_NOT_FOUND');
    const append = await mcp.call('append_cards', { deckId, idempotencyKey: 'other-user-1', cards: [{ front: 'Q', back: 'A' }] });
    assert.equal(append.body.error.code, 'DECK_FORBIDDEN');
  });

  test('should keep calls of different tokens apart when they run at once and one after another', async () => {
    // The SDK servers behind /mcp are reused from request to request: no call may see another's caller.
    const other = await suite.server.user();
    const mine = await connect(suite.user.token);
    const theirs = await connect(other.token);
    for (let round = 0; round < 3; round++) {
      const calls = await Promise.all(Array.from({ length: 8 }, (_, i) => {
        const [mcp, owner] = i % 2 === 0 ? [mine, suite.user] : [theirs, other];
        return Promise.all([mcp.call('whoami'), mcp.call('get_deck', { deckId })]).then(([who, read]) => ({ owner, who, read }));
      }));
      for (const { owner, who, read } of calls) {
        assert.equal(who.body.userId, owner.userId);
        if (owner === suite.user) assert.equal(read.body.id, deckId);
        else assert.equal(read.body.error.code, 'DECK_FORBIDDEN');
      }
    }
  });

  test('should accept a resource-bound token only at the resource it is bound to', async () => {
    const mcp = await connect('bound_mcp');
    const who = await mcp.call('whoami');
    assert.equal(who.body.source, 'oauth');
    const atApi = await suite.server.api('GET', '/whoami', { token: 'bound_mcp' });
    assert.equal(atApi.status, 401);
    const apiToken = await rawMcp(suite.server, INITIALIZE, { authorization: 'Bearer bound_api' });
    assert.equal(apiToken.status, 401, 'an API-bound token is refused at /mcp');
    assert.equal((await suite.server.api('GET', '/whoami', { token: 'bound_api' })).status, 200);
  });

  test("should share the token's rate-limit bucket with the API: a 429 envelope in the tool result", async (t) => {
    time.ms = Date.parse('2030-05-01T11:00:05.000Z');
    const limited = await build(t, { env: { PUBLIC_URL, RATE_LIMIT_PER_MINUTE: '3' }, overrides: { clock: time.clock }, socket: true });
    const owner = await limited.user();
    const mcp = await connectMcp(limited, owner.token, { checker });
    try {
      assert.equal((await limited.api('GET', '/whoami', { token: owner.token })).status, 200);
      assert.equal((await mcp.call('whoami')).isError, undefined);
      assert.equal((await limited.api('GET', '/decks', { token: owner.token })).status, 200);
      const refused = await mcp.call('list_decks');
      assert.equal(refused.isError, true);
      assert.deepEqual({ ...refused.body.error, requestId: undefined }, {
        code: 'RATE_LIMITED', message: 'Rate limit of 3 requests per minute exceeded', requestId: undefined, details: { window: 'minute', limit: 3 },
      });
      // The HTTP response of a refused call names the spent window, as the API's 429 does.
      const raw = await rawMcp(limited, { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'whoami', arguments: {} } }, {
        authorization: `Bearer ${owner.token}`,
      });
      assert.equal(raw.status, 200);
      assert.equal(raw.headers.get('ratelimit-policy'), '"minute";q=3;w=60, "day";q=1000000;w=86400');
      assert.equal(raw.headers.get('ratelimit'), '"minute";r=0;t=55');
      assert.equal((await limited.api('GET', '/whoami', { token: owner.token })).status, 429, 'the API sees the same spent bucket');
      time.ms += 60_000;
      assert.equal((await mcp.call('whoami')).isError, undefined, 'a new minute');
    } finally {
      await mcp.close();
    }
  });
});
