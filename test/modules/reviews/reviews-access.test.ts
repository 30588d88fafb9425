import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { ALL_SCOPES, createDeck, type TestUser, buildForSuite } from '../../helpers/server.ts';

type Call = { name: string; scope: string; method: string; path: () => string; json: () => unknown; ok: number };

describe('review sessions: scopes and ownership', () => {
  let owner: TestUser;
  let stranger: TestUser;
  let deckId: string;
  let deckTitle: string;
  let session: { id: string; cards: string[] };

  const suite = buildForSuite();
  before(async () => {
    owner = await suite.server.user();
    stranger = await suite.server.user();
    deckTitle = 'Owner private deck';
    ({ deckId } = await createDeck(suite.server, owner.token, 3, deckTitle));
    session = (await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId } })).body;
  });

  // Each call uses a fresh target where a success would change state, so the matrix stays independent.
  async function freshSession(): Promise<{ id: string; cards: string[] }> {
    const own = await createDeck(suite.server, owner.token, 2, 'Scratch');
    return (await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId: own.deckId } })).body;
  }

  describe('scope matrix', () => {
    let target: { id: string; cards: string[] };
    before(async () => { target = await freshSession(); });

    const calls: Call[] = [
      { name: 'POST /reviews', scope: 'reviews:write', method: 'POST', path: () => '/reviews', json: () => ({ deckId, resume: true }), ok: 201 },
      { name: 'GET /reviews/{id}', scope: 'reviews:read', method: 'GET', path: () => `/reviews/${target.id}`, json: () => undefined, ok: 200 },
      {
        name: 'POST /reviews/{id}/answers', scope: 'reviews:write', method: 'POST', path: () => `/reviews/${target.id}/answers`,
        json: () => ({ cardId: target.cards[0], rating: 'good' }), ok: 200,
      },
    ];

    for (const call of calls) {
      for (const scope of ALL_SCOPES) {
        const allowed = scope === call.scope;
        test(`${call.name} with only ${scope} should ${allowed ? `answer ${call.ok}` : 'be FORBIDDEN'}`, async () => {
          const { token } = await suite.server.token(owner.email, [scope], `only ${scope}`);
          const res = await suite.server.api(call.method, call.path(), { token, json: call.json() });
          if (allowed) {
            assert.equal(res.status, call.ok, res.text);
          } else {
            assert.equal(res.status, 403, res.text);
            assert.equal(res.body.error.code, 'FORBIDDEN');
            assert.equal(res.body.error.details.requiredScope, call.scope);
            assert.match(res.headers.get('www-authenticate') ?? '', new RegExp(`error="insufficient_scope", scope="${call.scope}"`));
          }
        });
      }
    }

    test('POST /reviews/{id}/complete needs reviews:write and nothing else does it', async () => {
      const completable = await freshSession();
      for (const scope of ALL_SCOPES.filter((s) => s !== 'reviews:write')) {
        const { token } = await suite.server.token(owner.email, [scope]);
        const res = await suite.server.api('POST', `/reviews/${completable.id}/complete`, { token });
        assert.equal(res.status, 403, scope);
        assert.equal(res.body.error.code, 'FORBIDDEN');
      }
      const read = await suite.server.api('GET', `/reviews/${completable.id}`, { token: owner.token });
      assert.equal(read.body.status, 'active', 'refused calls changed nothing');
      const { token } = await suite.server.token(owner.email, ['reviews:write']);
      assert.equal((await suite.server.api('POST', `/reviews/${completable.id}/complete`, { token })).status, 200);
    });

    test('should check the scope before the deck or session exists', async () => {
      const { token } = await suite.server.token(stranger.email, ['reviews:read']);
      const start = await suite.server.api('POST', '/reviews', { token, json: { deckId: 'dck_doesnotexist' } });
      assert.equal(start.body.error.code, 'FORBIDDEN');
      const answer = await suite.server.api('POST', `/reviews/${session.id}/answers`, { token, json: { cardId: 'x', rating: 'good' } });
      assert.equal(answer.body.error.code, 'FORBIDDEN');
      const { token: writer } = await suite.server.token(stranger.email, ['reviews:write']);
      const read = await suite.server.api('GET', '/reviews/rev_doesnotexist', { token: writer });
      assert.equal(read.body.error.code, 'FORBIDDEN');
    });
  });

  describe('ownership matrix', () => {
    function assertNoLeak(text: string): void {
      for (const secret of [deckTitle, ...session.cards]) assert.ok(!text.includes(secret), `response leaks ${secret}`);
    }

    test("should answer DECK_NOT_FOUND for another user's deck, with or without resume", async () => {
      for (const resume of [undefined, true, false]) {
        const res = await suite.server.api('POST', '/reviews', { token: stranger.token, json: { deckId, resume } });
        assert.equal(res.status, 404);
        assert.equal(res.body.error.code, 'DECK_NOT_FOUND');
        assertNoLeak(res.text);
      }
      const unknown = await suite.server.api('POST', '/reviews', { token: stranger.token, json: { deckId: 'dck_doesnotexist' } });
      assert.equal(unknown.body.error.message.replace('dck_doesnotexist', deckId), (await suite.server.api('POST', '/reviews', { token: stranger.token, json: { deckId } })).body.error.message,
        'a foreign deck reads exactly like a missing one');
    });

    test("should answer SESSION_NOT_FOUND for another user's session on every session route", async () => {
      const calls: [string, string, unknown][] = [
        ['GET', `/reviews/${session.id}`, undefined],
        ['POST', `/reviews/${session.id}/answers`, { cardId: session.cards[0], rating: 'again' }],
        ['POST', `/reviews/${session.id}/complete`, undefined],
      ];
      for (const [method, path, json] of calls) {
        const res = await suite.server.api(method, path, { token: stranger.token, json });
        assert.equal(res.status, 404, `${method} ${path}`);
        assert.equal(res.body.error.code, 'SESSION_NOT_FOUND');
        assertNoLeak(res.text);
      }
    });

    test("should leave the owner's session untouched by another user's calls", async () => {
      const read = await suite.server.api('GET', `/reviews/${session.id}`, { token: owner.token });
      assert.equal(read.body.status, 'active');
      assert.deepEqual(read.body.answers, []);
      const resumed = await suite.server.api('POST', '/reviews', { token: owner.token, json: { deckId, resume: true } });
      assert.equal(resumed.body.id, session.id, "the stranger's start did not abandon the owner's session");
    });

    test("should refuse another user's card in one's own session with CARD_NOT_FOUND", async () => {
      const own = await createDeck(suite.server, stranger.token, 1, 'Stranger deck');
      const mine = (await suite.server.api('POST', '/reviews', { token: stranger.token, json: { deckId: own.deckId } })).body;
      const res = await suite.server.api('POST', `/reviews/${mine.id}/answers`, { token: stranger.token, json: { cardId: session.cards[0], rating: 'good' } });
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, 'CARD_NOT_FOUND');
    });
  });
});
