import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { requestHash } from '../../../src/policy/idempotency.ts';
import { createDeck, deckBody, type ApiResponse, type TestUser, manualClock, buildForSuite } from '../../helpers/server.ts';

const HOUR = 3_600_000;
let keyCounter = 0;
const newKey = () => `idem-key-${process.pid}-${++keyCounter}`;
const card = (front: string) => ({ cards: [{ front, back: `${front} answer` }] });

function assertFresh(res: ApiResponse, status: number): void {
  assert.equal(res.status, status, res.text);
  assert.equal(res.headers.get('idempotent-replayed'), null);
}

function assertReplayOf(res: ApiResponse, original: ApiResponse): void {
  assert.equal(res.status, original.status);
  assert.equal(res.headers.get('idempotent-replayed'), 'true');
  assert.equal(res.text, original.text, 'the replay must be byte for byte the stored body');
}

describe('Idempotency-Key', () => {
  const time = manualClock();
  let alice: TestUser;
  let bob: TestUser;
  const suite = buildForSuite({ overrides: { clock: time.clock }, socket: true });
  before(async () => {
    alice = await suite.server.user();
    bob = await suite.server.user();
  });

  const append = (user: TestUser, deckId: string, body: unknown, key?: string, headers: Record<string, string> = {}) =>
    suite.server.api('POST', `/decks/${deckId}/cards`, { token: user.token, json: body, headers: key ? { 'idempotency-key': key, ...headers } : headers });
  const importDeck = (user: TestUser, body: unknown, key?: string) =>
    suite.server.api('POST', '/decks/import', { token: user.token, json: body, headers: key ? { 'idempotency-key': key } : {} });
  const deckCount = async (user: TestUser) => (await suite.server.api('GET', '/decks/capacity', { token: user.token })).body.current_decks as number;
  const cardCount = async (user: TestUser, deckId: string) => (await suite.server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cardCount as number;

  test('should replay an append with the same key and body byte for byte, appending once', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 2);
    const key = newKey();
    const first = await append(alice, deckId, card('once'), key);
    assertFresh(first, 200);
    assert.equal(first.body.idempotencyKey, key);
    const again = await append(alice, deckId, card('once'), key);
    assertReplayOf(again, first);
    assert.equal(await cardCount(alice, deckId), 3);
  });

  test('should replay an import with the same key and body byte for byte, creating one deck', async () => {
    const before = await deckCount(alice);
    const key = newKey();
    const first = await importDeck(alice, deckBody(2, 'replayed import'), key);
    assertFresh(first, 201);
    assert.equal(first.body.idempotencyKey, key);
    const again = await importDeck(alice, deckBody(2, 'replayed import'), key);
    assertReplayOf(again, first);
    assert.equal(await deckCount(alice), before + 1);
  });

  test('should not add idempotencyKey to a response when no key was sent', async () => {
    const res = await importDeck(alice, deckBody(1));
    assertFresh(res, 201);
    assert.equal('idempotencyKey' in res.body, false);
  });

  test('should refuse the same key with a different body with IDEMPOTENCY_CONFLICT and keep the stored result', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    const key = newKey();
    const first = await append(alice, deckId, card('original'), key);
    assertFresh(first, 200);
    const conflict = await append(alice, deckId, card('different'), key);
    assert.equal(conflict.status, 409);
    assert.equal(conflict.body.error.code, 'IDEMPOTENCY_CONFLICT');
    assertReplayOf(await append(alice, deckId, card('original'), key), first);
    assert.equal(await cardCount(alice, deckId), 2);

    const importKey = newKey();
    assertFresh(await importDeck(alice, deckBody(1, 'first body'), importKey), 201);
    const before = await deckCount(alice);
    const importConflict = await importDeck(alice, deckBody(1, 'second body'), importKey);
    assert.equal(importConflict.status, 409);
    assert.equal(importConflict.body.error.code, 'IDEMPOTENCY_CONFLICT');
    assert.equal(await deckCount(alice), before);
  });

  test('should replay, not refuse, the same key with the same JSON in another key order', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    const key = newKey();
    const first = await append(alice, deckId, { cards: [{ front: 'q', back: 'a', extras: { subject: 's', topic: 't' } }] }, key);
    assertFresh(first, 200);
    const reordered = { cards: [{ extras: { topic: 't', subject: 's' }, back: 'a', front: 'q' }] };
    assertReplayOf(await append(alice, deckId, reordered, key), first);
    assert.equal(await cardCount(alice, deckId), 2);

    const importKey = newKey();
    const body = deckBody(1, 'ordered');
    const created = await importDeck(alice, body, importKey);
    assertFresh(created, 201);
    const shuffled = { cards: body.cards, deck: Object.fromEntries(Object.entries(body.deck).reverse()) };
    assertReplayOf(await importDeck(alice, shuffled, importKey), created);
  });

  test("should run another user's request with the same key afresh", async () => {
    const key = newKey();
    const aliceRes = await importDeck(alice, deckBody(1, 'shared key'), key);
    assertFresh(aliceRes, 201);
    const bobRes = await importDeck(bob, deckBody(1, 'shared key'), key);
    assertFresh(bobRes, 201);
    assert.notEqual(bobRes.body.deckId, aliceRes.body.deckId);
    assert.equal((await suite.server.api('GET', `/decks/${bobRes.body.deckId}`, { token: bob.token })).status, 200);
    assertReplayOf(await importDeck(bob, deckBody(1, 'shared key'), key), bobRes);
  });

  test('should keep append and import keys apart', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    const key = newKey();
    assertFresh(await append(alice, deckId, card('append first'), key), 200);
    assertFresh(await importDeck(alice, deckBody(1, 'import second'), key), 201);
  });

  describe('a failed request leaves its key free', () => {
    test('should run a corrected append after a 400 SCHEMA_INVALID with the same key', async () => {
      const { deckId } = await createDeck(suite.server, alice.token, 1);
      const key = newKey();
      const invalid = await append(alice, deckId, { cards: [{ front: 42 }] }, key);
      assert.equal(invalid.body.error.code, 'SCHEMA_INVALID');
      // Blank sides pass the schema and fail in the service, after the key was claimed.
      const blank = await append(alice, deckId, { cards: [{ front: '  ', back: '' }] }, key);
      assert.equal(blank.body.error.code, 'SCHEMA_INVALID');
      assertFresh(await append(alice, deckId, card('fixed'), key), 200);
      assert.equal(await cardCount(alice, deckId), 2);
    });

    test('should run a smaller append after a 400 TOO_MANY_CARDS with the same key', async () => {
      const { deckId } = await createDeck(suite.server, alice.token, 249);
      const key = newKey();
      const tooMany = await append(alice, deckId, { cards: [{ front: 'a' }, { front: 'b' }] }, key);
      assert.equal(tooMany.body.error.code, 'TOO_MANY_CARDS');
      assertFresh(await append(alice, deckId, { cards: [{ front: 'a' }] }, key), 200);
      assert.equal(await cardCount(alice, deckId), 250);
    });

    test('should run an append after a 404 DECK_NOT_FOUND with the same key', async () => {
      const key = newKey();
      const missing = await append(alice, 'dck_doesnotexist', card('lost'), key);
      assert.equal(missing.body.error.code, 'DECK_NOT_FOUND');
      const { deckId } = await createDeck(suite.server, alice.token, 1);
      assertFresh(await append(alice, deckId, card('lost'), key), 200);
    });

    test('should run an update import after a 404 for its target with the same key', async () => {
      const key = newKey();
      const missing = await suite.server.api('POST', '/decks/import?mode=update&targetDeckId=dck_nope', {
        token: alice.token, json: deckBody(1), headers: { 'idempotency-key': key },
      });
      assert.equal(missing.body.error.code, 'DECK_NOT_FOUND');
      assertFresh(await importDeck(alice, deckBody(1), key), 201);
    });

    test('should run the same append after a 412 VERSION_MISMATCH once If-Match is current', async () => {
      const { deckId, version } = await createDeck(suite.server, alice.token, 1);
      await append(alice, deckId, card('moves the version'));
      const key = newKey();
      const stale = await append(alice, deckId, card('careful'), key, { 'if-match': version });
      assert.equal(stale.status, 412);
      const current = (await suite.server.api('GET', `/decks/${deckId}`, { token: alice.token })).body.version as string;
      assertFresh(await append(alice, deckId, card('careful'), key, { 'if-match': current }), 200);
    });
  });

  test('should refuse a key shorter than 8 or longer than 128 characters with BAD_REQUEST', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    for (const key of ['a'.repeat(7), 'b'.repeat(129)]) {
      const res = await append(alice, deckId, card('x'), key);
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, 'BAD_REQUEST');
    }
    for (const key of ['c'.repeat(8), 'd'.repeat(128)]) assertFresh(await append(alice, deckId, card(key), key), 200);
  });

  test('should refuse a key that is not printable ASCII with BAD_REQUEST, since a header arrives as Latin-1', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    const res = await append(alice, deckId, card('x'), 'clé-clé-clé');
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, 'BAD_REQUEST');
    assertFresh(await append(alice, deckId, card('y'), 'key with spaces ~!'), 200);
  });

  test('should refuse two Idempotency-Key headers with 400 BAD_REQUEST and run nothing', async () => {
    const { deckId } = await createDeck(suite.server, alice.token, 1);
    const decks = await deckCount(alice);
    const [one, two] = [newKey(), newKey()];
    const twice = (path: string, body: unknown, keys: [string, string]) => suite.server.api('POST', path, {
      token: alice.token, json: body, headers: { 'Idempotency-Key': keys[0] }, repeat: [['idempotency-key', keys[1]]],
    });
    for (const keys of [[one, two], [one, one]] as [string, string][]) {
      for (const res of [await twice(`/decks/${deckId}/cards`, card('twice'), keys), await twice('/decks/import', deckBody(1, 'twice'), keys)]) {
        assert.equal(res.status, 400, res.text);
        assert.equal(res.body.error.code, 'BAD_REQUEST');
      }
    }
    assert.equal(await cardCount(alice, deckId), 1);
    assert.equal(await deckCount(alice), decks);
    // Neither key was claimed: each runs once sent alone.
    assertFresh(await append(alice, deckId, card('once'), one), 200);
    assertFresh(await append(alice, deckId, card('once more'), two), 200);
  });

  test('should forget a stored result after 24 hours', async () => {
    const key = newKey();
    const first = await importDeck(alice, deckBody(1, 'day old'), key);
    assertFresh(first, 201);
    time.ms += 24 * HOUR - 1000;
    assertReplayOf(await importDeck(alice, deckBody(1, 'day old'), key), first);
    time.ms += 1000;
    const later = await importDeck(alice, deckBody(1, 'day old'), key);
    assertFresh(later, 201);
    assert.notEqual(later.body.deckId, first.body.deckId);
  });

  test('should answer IDEMPOTENCY_KEY_IN_USE for a pending claim and let a request take it over after 60 seconds', async () => {
    // A claim for the very same request whose write never finishes, as a crashed process leaves
    // it: made through the policy's idempotency runner, with the API's hash of that request.
    const key = newKey();
    const body = deckBody(1, 'crashed');
    const call = { operation: 'import-deck', key, requestHash: requestHash('POST', '/api/v1/decks/import', {}, { mode: 'create' }, body) };
    let claimed!: () => void;
    const claimedNow = new Promise<void>((resolve) => { claimed = resolve; });
    let crash!: (error: Error) => void;
    const crashed = suite.server.app.policy.idempotent({ userId: alice.userId }, call, () => {
      claimed();
      return new Promise<never>((_resolve, reject) => { crash = reject; });
    }, () => ({ status: 201, body: '{}' }));
    await claimedNow;
    const before = await deckCount(alice);

    const busy = await importDeck(alice, body, key);
    assert.equal(busy.status, 409);
    assert.equal(busy.body.error.code, 'IDEMPOTENCY_KEY_IN_USE');
    assert.equal(busy.headers.get('retry-after'), '1');
    time.ms += 59_000;
    assert.equal((await importDeck(alice, body, key)).body.error?.code, 'IDEMPOTENCY_KEY_IN_USE');
    time.ms += 1000;
    const taken = await importDeck(alice, body, key);
    assertFresh(taken, 201);
    assert.equal(await deckCount(alice), before + 1);
    assertReplayOf(await importDeck(alice, body, key), taken);
    // The abandoned write failing now frees nothing: the key belongs to the request that took it.
    crash(new Error('crashed'));
    await assert.rejects(crashed, /crashed/);
    assertReplayOf(await importDeck(alice, body, key), taken);
  });
});

describe('Idempotency-Key with rate limits', () => {
  const time = manualClock();
  const suite = buildForSuite({ env: { RATE_LIMIT_PER_MINUTE: '3' }, overrides: { clock: time.clock } });

  test('should run an append refused with 429 once the window resets, with the same key', async () => {
    const user = await suite.server.user();
    const { deckId } = await createDeck(suite.server, user.token, 1);
    const key = newKey();
    const send = () => suite.server.api('POST', `/decks/${deckId}/cards`, { token: user.token, json: card('later'), headers: { 'idempotency-key': key } });
    await suite.server.api('GET', '/whoami', { token: user.token });
    await suite.server.api('GET', '/whoami', { token: user.token });
    const limited = await send();
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'RATE_LIMITED');
    time.ms += 60_000;
    assertFresh(await send(), 200);
  });
});
