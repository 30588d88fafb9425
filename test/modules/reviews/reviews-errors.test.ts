import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { revokeToken } from '../../../src/modules/tokens/tokens.service.ts';
import { createDeck, deckBody, type ApiResponse, type TestUser, buildForSuite } from '../../helpers/server.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, `${res.status} ${res.text}`);
  assert.equal(res.body.error.code, code);
}

describe('review sessions: 4xx codes', () => {
  let owner: TestUser;
  let deckId: string;
  const suite = buildForSuite();
  before(async () => {
    owner = await suite.server.user();
    ({ deckId } = await createDeck(suite.server, owner.token, 3));
  });

  async function newSession(): Promise<{ id: string; cards: string[] }> {
    const res = await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId } });
    assert.equal(res.status, 201);
    return res.body;
  }

  describe('POST /reviews', () => {
    test('should reject an empty body with BAD_REQUEST', async () => {
      assertError(await suite.server.api('POST', '/reviews', { token: owner.token }), 400, 'BAD_REQUEST');
      assertError(await suite.server.api('POST', '/reviews', { token: owner.token, body: '', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    });

    test('should reject malformed JSON with BAD_REQUEST', async () => {
      assertError(await suite.server.api('POST', '/reviews', { token: owner.token, body: '{"deckId":', headers: { 'content-type': 'application/json' } }), 400, 'BAD_REQUEST');
    });

    test('should reject invalid bodies with SCHEMA_INVALID naming the field', async () => {
      const cases: [unknown, string][] = [
        [{}, 'deckId'],
        [{ deckId: 42 }, 'deckId'],
        [{ deckId: '' }, 'deckId'],
        [{ deckId, resume: 'yes' }, 'resume'],
        [{ deckId, shuffle: true }, 'shuffle'],
      ];
      for (const [json, field] of cases) {
        const res = await suite.server.api('POST', '/reviews', { token: owner.token, json });
        assertError(res, 400, 'SCHEMA_INVALID');
        assert.equal(res.body.error.details.field, field, JSON.stringify(json));
      }
    });

    test('should reject an unknown deck with DECK_NOT_FOUND', async () => {
      assertError(await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId: 'dck_doesnotexist' } }), 404, 'DECK_NOT_FOUND');
      assertError(await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId: 'dck_doesnotexist', resume: true } }), 404, 'DECK_NOT_FOUND');
    });

    test('should reject a markdown body with UNSUPPORTED_MEDIA_TYPE', async () => {
      const res = await suite.server.api('POST', '/reviews', { token: owner.token, body: `deckId: ${deckId}`, headers: { 'content-type': 'text/markdown' } });
      assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });
  });

  describe('GET /reviews/{sessionId}', () => {
    test('should reject an unknown session with SESSION_NOT_FOUND', async () => {
      assertError(await suite.server.api('GET', '/reviews/rev_doesnotexist', { token: owner.token }), 404, 'SESSION_NOT_FOUND');
    });
  });

  describe('POST /reviews/{sessionId}/answers', () => {
    test('should reject an empty body with BAD_REQUEST', async () => {
      const session = await newSession();
      assertError(await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token }), 400, 'BAD_REQUEST');
    });

    test('should reject a markdown body with UNSUPPORTED_MEDIA_TYPE', async () => {
      const session = await newSession();
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, body: 'good', headers: { 'content-type': 'text/markdown' } });
      assertError(res, 415, 'UNSUPPORTED_MEDIA_TYPE');
    });

    test('should reject invalid answers with SCHEMA_INVALID naming the field', async () => {
      const session = await newSession();
      const cardId = session.cards[0];
      const cases: [unknown, string][] = [
        [{ rating: 'good' }, 'cardId'],
        [{ cardId }, 'rating'],
        [{ cardId, rating: 'perfect' }, 'rating'],
        [{ cardId, rating: 3 }, 'rating'],
        [{ cardId, rating: 'good', durationMs: -1 }, 'durationMs'],
        [{ cardId, rating: 'good', durationMs: 1.5 }, 'durationMs'],
        [{ cardId, rating: 'good', note: 'x' }, 'note'],
      ];
      for (const [json, field] of cases) {
        const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json });
        assertError(res, 400, 'SCHEMA_INVALID');
        assert.equal(res.body.error.details.field, field, JSON.stringify(json));
      }
      const read = await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token });
      assert.deepEqual(read.body.answers, [], 'no invalid answer was recorded');
    });

    test('should reject an unknown session with SESSION_NOT_FOUND', async () => {
      const res = await suite.server.api('POST', '/reviews/rev_doesnotexist/answers', { token: owner.token, json: { cardId: 'crd_x', rating: 'good' } });
      assertError(res, 404, 'SESSION_NOT_FOUND');
    });

    test('should reject a card that is not in the session with CARD_NOT_FOUND', async () => {
      const session = await newSession();
      const other = await createDeck(suite.server, owner.token, 1, 'Other');
      const otherCard = (await suite.server.api('GET', `/decks/${other.deckId}`, { token: owner.token })).body.cards[0].id;
      for (const cardId of ['crd_doesnotexist', otherCard]) {
        assertError(await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId, rating: 'good' } }), 404, 'CARD_NOT_FOUND');
      }
    });

    test('should reject a queued card that an import removed from the deck with CARD_NOT_FOUND', async () => {
      const own = await createDeck(suite.server, owner.token, 2, 'Shrinking');
      const session = (await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId: own.deckId } })).body;
      const kept = deckBody(2, 'Shrinking');
      const update = await suite.server.api('POST', `/decks/import?mode=update&targetDeckId=${own.deckId}`, {
        token: owner.token, json: { ...kept, cards: [kept.cards[0]] },
      });
      assert.equal(update.status, 200);
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId: session.cards[1], rating: 'good' } });
      assertError(res, 404, 'CARD_NOT_FOUND');
      // Still in the session's queue: the message says it was deleted, not that it is not there.
      assert.match(res.body.error.message, new RegExp(`^Card ${session.cards[1]} was deleted from deck ${own.deckId} after session ${session.id} started`));
      const ok = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId: session.cards[0], rating: 'good' } });
      assert.equal(ok.status, 200, 'the kept card can still be answered');
    });

    test('should reject a different rating for an answered card with ANSWER_CONFLICT', async () => {
      const session = await newSession();
      const cardId = session.cards[0];
      await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId, rating: 'good' } });
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId, rating: 'again' } });
      assertError(res, 409, 'ANSWER_CONFLICT');
      assert.deepEqual(res.body.error.details, { cardId, rating: 'good' });
      const read = await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token });
      assert.equal(read.body.answers[0].rating, 'good', 'the first answer stands');
    });

    test('should reject a new answer in a completed session with SESSION_NOT_ACTIVE', async () => {
      const session = await newSession();
      await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token });
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId: session.cards[0], rating: 'good' } });
      assertError(res, 409, 'SESSION_NOT_ACTIVE');
      assert.equal(res.body.error.details.status, 'completed');
    });

    test('should reject an answer in an abandoned session with SESSION_NOT_ACTIVE', async () => {
      const session = await newSession();
      await newSession();
      const res = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token: owner.token, json: { cardId: session.cards[0], rating: 'good' } });
      assertError(res, 409, 'SESSION_NOT_ACTIVE');
      assert.equal(res.body.error.details.status, 'abandoned');
    });
  });

  describe('POST /reviews/{sessionId}/complete', () => {
    test('should reject an unknown session with SESSION_NOT_FOUND', async () => {
      assertError(await suite.server.api('POST', '/reviews/rev_doesnotexist/complete', { token: owner.token }), 404, 'SESSION_NOT_FOUND');
    });

    test('should reject completing an abandoned session with SESSION_NOT_ACTIVE', async () => {
      const session = await newSession();
      await newSession();
      const res = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token });
      assertError(res, 409, 'SESSION_NOT_ACTIVE');
      assert.equal((await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token })).body.status, 'abandoned');
    });

    test('should reject a body that is not JSON with BAD_REQUEST or UNSUPPORTED_MEDIA_TYPE', async () => {
      const session = await newSession();
      const malformed = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token, body: '{', headers: { 'content-type': 'application/json' } });
      assertError(malformed, 400, 'BAD_REQUEST');
      const markdown = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token, body: '# done', headers: { 'content-type': 'text/markdown' } });
      assertError(markdown, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal((await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token })).body.status, 'active');
    });

    test('should accept an empty JSON object as the body', async () => {
      const session = await newSession();
      const res = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token, json: {} });
      assert.equal(res.status, 200);
    });

    test('should reject a body with any field, or that is not an object, with SCHEMA_INVALID and complete nothing', async () => {
      const session = await newSession();
      const field = await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token, json: { force: true } });
      assertError(field, 400, 'SCHEMA_INVALID');
      assert.equal(field.body.error.details.field, 'force');
      for (const body of ['[]', '"done"', '1']) {
        assertError(await suite.server.api('POST', `/reviews/${session.id}/complete`, { token: owner.token, body, headers: { 'content-type': 'application/json' } }), 400, 'SCHEMA_INVALID');
      }
      assert.equal((await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token })).body.status, 'active');
    });
  });

  test('should reject a request without a token with UNAUTHORIZED on every route', async () => {
    const session = await newSession();
    const calls: [string, string, unknown][] = [
      ['POST', '/reviews', { deckId }],
      ['GET', `/reviews/${session.id}`, undefined],
      ['POST', `/reviews/${session.id}/answers`, { cardId: session.cards[0], rating: 'good' }],
      ['POST', `/reviews/${session.id}/complete`, undefined],
    ];
    for (const [method, path, json] of calls) {
      const res = await suite.server.api(method, path, { json });
      assertError(res, 401, 'UNAUTHORIZED');
      assert.match(res.headers.get('www-authenticate') ?? '', /^Bearer /);
    }
  });

  test('should reject a revoked token with TOKEN_REVOKED', async () => {
    const user = await suite.server.user();
    await revokeToken(suite.server.app.services, { tokenId: user.tokenId });
    assertError(await suite.server.api('POST', '/reviews', { token: user.token, json: { deckId } }), 401, 'TOKEN_REVOKED');
    assertError(await suite.server.api('GET', '/reviews/rev_doesnotexist', { token: user.token }), 401, 'TOKEN_REVOKED');
  });
});

describe('review sessions: limits', () => {
  const suite = buildForSuite({ env: { BODY_LIMIT_BYTES: '1024', RATE_LIMIT_PER_MINUTE: '3' } });

  test('should reject an oversized body with PAYLOAD_TOO_LARGE', async () => {
    const { token } = await suite.server.user();
    const res = await suite.server.api('POST', '/reviews', { token, json: { deckId: 'x'.repeat(2000) } });
    assertError(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('should reject calls over the rate limit with RATE_LIMITED and Retry-After', async () => {
    const { token } = await suite.server.user();
    for (let i = 0; i < 3; i++) {
      assert.equal((await suite.server.api('GET', '/reviews/rev_doesnotexist', { token })).status, 404);
    }
    const res = await suite.server.api('GET', '/reviews/rev_doesnotexist', { token });
    assertError(res, 429, 'RATE_LIMITED');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  });
});
