import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { type ApiResponse, type TestUser, buildForSuite } from '../../helpers/server.ts';
import { statementsOf } from '../../helpers/statements.ts';

function assertError(res: ApiResponse, status: number, code: string): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.body.error.code, code, res.text);
}

const ids = (res: ApiResponse): string[] => res.body.decks.map((d: { id: string }) => d.id);

describe('public decks: GET /public/decks, GET /public/decks/{deckId}, POST /public/decks/{deckId}/copy', () => {
  let owner: TestUser;
  let reader: TestUser;
  const made: Record<string, string> = {};
  const suite = buildForSuite({ env: { DECK_LIMIT: '3' } });
  before(async () => {
    owner = await suite.server.user();
    reader = await suite.server.user();
    const deck = async (name: string, visibility: string, extra: Record<string, unknown> = {}) => {
      const res = await suite.server.api('POST', '/decks/import', {
        token: owner.token,
        json: { deck: { title: `Owl ${name}`, lang: 'en', visibility, tags: ['Birds'], ...extra }, cards: [{ front: `owl ${name} front`, back: 'nocturnal' }] },
      });
      assert.equal(res.status, 201, res.text);
      made[name] = res.body.deckId;
    };
    await deck('public', 'public');
    await deck('french', 'public', { lang: 'fr', tags: ['Oiseaux'] });
    await deck('unlisted', 'unlisted');
    // The reader's own private deck is no public deck either.
    const own = await suite.server.api('POST', '/decks/import', { token: reader.token, json: { deck: { title: 'Owl private', lang: 'en' }, cards: [{ front: 'owl', back: 'x' }] } });
    made.private = own.body.deckId;
  });

  test("should list only public decks of every user, without owner details or editUrl", async () => {
    const res = await suite.server.api('GET', '/public/decks', { token: reader.token });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(new Set(ids(res)), new Set([made.public, made.french]));
    for (const deck of res.body.decks) {
      assert.equal(deck.editUrl, undefined);
      assert.equal(deck.userId, undefined);
      assert.equal(deck.visibility, 'public');
      assert.match(deck.previewUrl, /\/decks\/dck_/);
    }
  });

  test('should search public decks by words, tag and language', async () => {
    assert.deepEqual(new Set(ids(await suite.server.api('GET', '/public/decks?q=owl', { token: reader.token }))), new Set([made.public, made.french]));
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=owl%20french', { token: reader.token })), [made.french]);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?lang=FR', { token: reader.token })), [made.french]);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?tag=birds', { token: reader.token })), [made.public]);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=unlisted', { token: reader.token })), [], 'never an unlisted deck');
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=private', { token: reader.token })), [], 'never a private deck');
    assert.equal((await suite.server.api('GET', `/public/decks?q=${encodeURIComponent('"'.repeat(200))}`, { token: reader.token })).status, 200);
  });

  test('should read a public or unlisted deck with its cards and say a private one does not exist', async () => {
    const pub = await suite.server.api('GET', `/public/decks/${made.public}`, { token: reader.token });
    assert.equal(pub.status, 200, pub.text);
    assert.equal(pub.body.cards.length, 1);
    assert.equal(pub.body.editUrl, undefined);
    assert.equal((await suite.server.api('GET', `/public/decks/${made.unlisted}`, { token: reader.token })).status, 200);
    assertError(await suite.server.api('GET', `/public/decks/${made.private}`, { token: owner.token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('GET', '/public/decks/dck_missing0000000000000', { token: reader.token }), 404, 'DECK_NOT_FOUND');
  });

  test('should copy a public deck into the caller\'s decks as a private deck, once per Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'copy-owl-public-1' };
    const res = await suite.server.api('POST', `/public/decks/${made.public}/copy`, { token: reader.token, headers });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.copiedFrom, made.public);
    assert.notEqual(res.body.id, made.public);
    assert.equal(res.body.visibility, 'private');
    assert.equal(res.body.title, 'Owl public');
    assert.equal(res.body.cards[0].front, 'owl public front');
    const source = await suite.server.api('GET', `/public/decks/${made.public}`, { token: reader.token });
    assert.notEqual(res.body.cards[0].id, source.body.cards[0].id);
    const again = await suite.server.api('POST', `/public/decks/${made.public}/copy`, { token: reader.token, headers });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.body.id, res.body.id);
    const mine = await suite.server.api('GET', `/decks/${res.body.id}`, { token: reader.token });
    assert.equal(mine.status, 200);
    assert.equal((await suite.server.api('GET', '/search?q=owl', { token: reader.token })).body.results.length, 2, 'the copy is in the index');
    assert.equal((await suite.server.api('GET', '/decks/capacity', { token: reader.token })).body.current_decks, 2);
  });

  test('should copy an unlisted deck, refuse a private one and refuse at capacity', async () => {
    assert.equal((await suite.server.api('POST', `/public/decks/${made.unlisted}/copy`, { token: reader.token })).status, 201);
    assertError(await suite.server.api('POST', `/public/decks/${made.private}/copy`, { token: owner.token }), 404, 'DECK_NOT_FOUND');
    assertError(await suite.server.api('POST', `/public/decks/${made.public}/copy`, { token: reader.token }), 403, 'DECK_LIMIT_REACHED');
  });

  test('should need public-decks:read, and decks:write as well to copy', async () => {
    const { token: readOnly } = await suite.server.token(reader.email, ['public-decks:read']);
    const { token: noPublic } = await suite.server.token(reader.email, ['decks:read', 'decks:write']);
    assertError(await suite.server.api('GET', '/public/decks', { token: noPublic }), 403, 'FORBIDDEN');
    assertError(await suite.server.api('GET', `/public/decks/${made.public}`, { token: noPublic }), 403, 'FORBIDDEN');
    assert.equal((await suite.server.api('GET', '/public/decks', { token: readOnly })).status, 200);
    const refused = await suite.server.api('POST', `/public/decks/${made.public}/copy`, { token: readOnly });
    assertError(refused, 403, 'FORBIDDEN');
    assert.equal(refused.body.error.details.requiredScope, 'decks:write');
  });

  test('should drop a public deck from the listing once its owner deletes it or makes it private', async () => {
    const heronOwner = await suite.server.user();
    const res = await suite.server.api('POST', '/decks/import', { token: heronOwner.token, json: { deck: { title: 'Fleeting heron', lang: 'en', visibility: 'public' }, cards: [{ front: 'heron', back: 'b' }] } });
    const deckId = res.body.deckId as string;
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=heron', { token: reader.token })), [deckId]);
    assert.equal((await suite.server.api('PATCH', `/decks/${deckId}`, { token: heronOwner.token, json: { visibility: 'private' } })).status, 200);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=heron', { token: reader.token })), []);
    assert.equal((await suite.server.api('PATCH', `/decks/${deckId}`, { token: heronOwner.token, json: { visibility: 'public' } })).status, 200);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=heron', { token: reader.token })), [deckId], 'public again');
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token: heronOwner.token })).status, 204);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=heron', { token: reader.token })), []);
    assert.equal((await suite.server.api('POST', `/decks/${deckId}/restore`, { token: heronOwner.token })).status, 200);
    assert.deepEqual(ids(await suite.server.api('GET', '/public/decks?q=heron', { token: reader.token })), [deckId], 'restored');
    assert.equal((await suite.server.api('DELETE', `/decks/${deckId}`, { token: heronOwner.token })).status, 204);
    assert.ok(!ids(await suite.server.api('GET', '/public/decks', { token: reader.token })).includes(deckId));
    assertError(await suite.server.api('GET', `/public/decks/${deckId}`, { token: reader.token }), 404, 'DECK_NOT_FOUND');
  });
});

describe('a deck written with the visibility it has', () => {
  const suite = buildForSuite();

  test('should not index the whole deck again, and should when the visibility changes', async () => {
    const { server, user } = suite;
    const res = await server.api('POST', '/decks/import', { token: user.token, json: { deck: { title: 'Kestrels', lang: 'en', visibility: 'public' }, cards: [{ front: 'kestrel', back: 'hovers' }] } });
    const deckId = res.body.deckId as string;
    // A whole deck indexed again: every document of the deck removed, its cards read back.
    const wholeDeck = (statements: string[]) => statements.filter((s) => /^delete from search_documents where deck_id = (?:\?|\$1)$/i.test(s.trim()) || /^select "id", "data" from "cards"/.test(s));
    const same = await statementsOf(server.app.services.db, async () => {
      assert.equal((await server.api('PATCH', `/decks/${deckId}`, { token: user.token, json: { visibility: 'public', title: 'Kestrels at dawn' } })).status, 200);
    });
    assert.deepEqual(wholeDeck(same), [], 'only the deck\'s own document is indexed again');
    assert.deepEqual(ids(await server.api('GET', '/public/decks?q=dawn', { token: user.token })), [deckId]);
    const changed = await statementsOf(server.app.services.db, async () => {
      assert.equal((await server.api('PATCH', `/decks/${deckId}`, { token: user.token, json: { visibility: 'private' } })).status, 200);
    });
    assert.deepEqual(ids(await server.api('GET', '/public/decks?q=kestrel', { token: user.token })), []);
    assert.ok(changed.length > 0);
  });
});
