// Step-up (DECISIONS "MCP"): a tool call whose OAuth token lacks the tool's scope is HTTP 403 with
// an insufficient_scope challenge naming the scope the tool needs and the MCP endpoint's metadata,
// so the client can ask the person for more; a personal access token, which cannot step up, gets
// the tool error FORBIDDEN. The OAuth tokens are real: a registered client, a signed-in person
// who allows one scope on the consent page, and the token endpoint.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as client from 'openid-client';
import { listActivityOfToken } from '../../../src/modules/activity/activity.repository.ts';
import { listTokenActivity } from '../../../src/modules/activity/activity.service.ts';
import { connectMcp, rawMcp } from '../../helpers/mcp.ts';
import { authorizationUrl, FormBrowser, loopbackApp, registerFromResourceMetadata, signedUpUser } from '../../helpers/oauth.ts';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

const appendCall = (id: number, deckId: string) => ({
  jsonrpc: '2.0', id, method: 'tools/call',
  params: { name: 'append_cards', arguments: { deckId, idempotencyKey: `step-up-${id}`, cards: [{ front: 'Q', back: 'A' }] } },
});

describe('MCP step-up', () => {
  let app: Awaited<ReturnType<typeof loopbackApp>>;
  let person: { userId: string; email: string };
  let readerToken: string;
  let deckId: string;
  let metadataUrl: string;

  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => {
    await app.close();
  });
  const suite = buildForSuite({ publicUrl: true });
  before(async () => {
    app = await loopbackApp();
    person = await signedUpUser(suite.server);
    metadataUrl = `${suite.server.url}/.well-known/oauth-protected-resource/mcp`;
    const config = await registerFromResourceMetadata(suite.server, { client_name: 'Agent', redirect_uris: [app.redirectUri] });
    const resource = `${suite.server.url}/mcp`;
    // The person allows reading decks only.
    const auth = await authorizationUrl(config, { redirect_uri: app.redirectUri, scope: 'decks:read', resource });
    const callback = await new FormBrowser(suite.server.url).authorize(auth.url, person.email, 'allow');
    const tokens = await client.authorizationCodeGrant(config, callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    assert.equal(tokens.scope, 'decks:read');
    readerToken = tokens.access_token;
    const pat = await suite.server.token(person.email, ['decks:read', 'decks:write']);
    ({ deckId } = await createDeck(suite.server, pat.token, 2));
  });

  test('should answer a tool call the OAuth token lacks the scope for with 403 insufficient_scope naming that scope', async () => {
    const res = await rawMcp(suite.server, appendCall(7, deckId), { authorization: `Bearer ${readerToken}` });
    assert.equal(res.status, 403);
    assert.equal(res.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="decks:write", resource_metadata="${metadataUrl}"`);
    const body = (await res.json()) as any;
    assert.equal(body.id, 7);
    const { requestId, ...envelope } = body.error.data.error;
    assert.deepEqual(envelope, { code: 'FORBIDDEN', message: 'This call needs the decks:write scope', details: { requiredScope: 'decks:write' } });
    assert.match(requestId, /\S/, 'the error names its request, as every error does');

    const read = await rawMcp(suite.server, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'get_deck', arguments: { deckId } } }, { authorization: `Bearer ${readerToken}` });
    assert.equal(read.status, 200, 'a tool within the granted scope runs');
    assert.equal(((await read.json()) as any).result.structuredContent.id, deckId);
    const batch = await rawMcp(suite.server, [{ jsonrpc: '2.0', id: 9, method: 'tools/list' }, appendCall(10, deckId)], { authorization: `Bearer ${readerToken}` });
    assert.equal(batch.status, 403, 'one call needing more refuses the batch, before any of it runs');
    assert.match(batch.headers.get('www-authenticate') ?? '', /scope="decks:write"/);
  });

  test("should let the official clients see the 403 in both eras, and record the refused call", async () => {
    for (const kind of ['v1', 'v2-2026-07-28'] as const) {
      const mcp = await connectMcp(suite.server, readerToken, { client: kind });
      try {
        assert.equal((await mcp.call('get_deck', { deckId })).body.id, deckId, kind);
        await assert.rejects(mcp.call('append_cards', { deckId, idempotencyKey: `step-up-${kind}`, cards: [{ front: 'Q', back: 'A' }] }), /403|insufficient.scope|Forbidden/i, kind);
      } finally {
        await mcp.close();
      }
    }
    const who = await connectMcp(suite.server, readerToken);
    const grantId = (await who.call('whoami')).body.token.id as string;
    await who.close();
    await suite.server.app.activity.flush();
    const entries = await listActivityOfToken(suite.server.app.services.db, grantId, 50);
    assert.ok(entries.some((e) => e.route === 'mcp:append_cards' && e.status === 403), 'the refused call is in the grant\'s activity log');
    assert.equal((await suite.server.api('GET', '/whoami', { token: readerToken })).status, 401, 'the token is bound to the MCP endpoint');
  });

  test('should give a personal access token without the scope the tool error FORBIDDEN, not a 403', async () => {
    const pat = await suite.server.token(person.email, ['decks:read']);
    const res = await rawMcp(suite.server, appendCall(11, deckId), { authorization: `Bearer ${pat.token}` });
    assert.equal(res.status, 200);
    const result = ((await res.json()) as any).result;
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).error.code, 'FORBIDDEN');
    await suite.server.app.activity.flush();
    const entries = await listTokenActivity(suite.server.app.services, { tokenId: pat.tokenId, limit: 10 });
    assert.ok(entries.some((e) => e.route === 'mcp:append_cards' && e.status === 403));
  });
});
