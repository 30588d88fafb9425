import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cli, runCli } from '../../helpers/process.ts';
import { createDeck, startServerWithUser, type TestServer, type TestUser } from '../../helpers/server.ts';

describe('flashdeck decks delete, restore and list --deleted', () => {
  let server: TestServer;
  let user: TestUser;
  let env: Record<string, string>;
  before(async () => {
    ({ server, user } = await startServerWithUser());
    env = { DATA_DIR: server.dataDir };
  });
  after(async () => { await server.close(); });

  test('should move a deck to the trash, list it there, and restore it', async () => {
    const { deckId } = await createDeck(server, user.token, 2, 'Operator managed');
    const listed = await cli(['decks', 'list', '--user', user.email], env);
    assert.match(listed, new RegExp(`^${deckId}\\t2\\tprivate\\t.*\\tOperator managed$`, 'm'));

    assert.match(await cli(['decks', 'delete', deckId], env), /^deleted dck_/);
    const trash = await cli(['decks', 'list', '--deleted', '--user', user.email], env);
    const [header, row] = trash.split('\n');
    assert.equal(header, 'ID\tCARDS\tDELETED\tPURGE\tTITLE');
    assert.equal(row.split('\t')[0], deckId);
    assert.ok(!(await cli(['decks', 'list', '--user', user.email], env)).includes(deckId));
    assert.deepEqual((await server.api('GET', '/decks/trash', { token: user.token })).body.decks.map((d: { id: string }) => d.id), [deckId]);

    assert.equal(await cli(['decks', 'restore', deckId], env), `restored ${deckId}`);
    assert.equal((await server.api('GET', '/decks/trash', { token: user.token })).body.decks.length, 0);
    assert.equal((await server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cards.length, 2);
  });

  test('should say a deck that does not exist was not found, and need DECK_ID and --user', async () => {
    const missing = await runCli(['decks', 'delete', 'dck_doesNotExist000000'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^flashdeck: Deck dck_doesNotExist000000 was not found/);
    const noId = await runCli(['decks', 'restore'], env);
    assert.equal(noId.code, 1);
    assert.match(noId.stderr, /DECK_ID is required/);
    const noUser = await runCli(['decks', 'list', '--deleted'], env);
    assert.equal(noUser.code, 1);
    assert.match(noUser.stderr, /--user is required/);
  });
});
