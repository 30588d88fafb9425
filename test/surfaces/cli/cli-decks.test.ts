import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { cli, runCli } from '../../helpers/process.ts';
import { createDeck, buildForSuite } from '../../helpers/server.ts';

describe('flashdeck decks delete, restore and list --deleted', () => {
  let env: Record<string, string>;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    env = { DATA_DIR: suite.server.dataDir };
  });

  test('should move a deck to the trash, list it there, and restore it', async () => {
    const { deckId } = await createDeck(suite.server, suite.user.token, 2, 'Operator managed');
    const listed = await cli(['decks', 'list', '--user', suite.user.email], env);
    assert.match(listed, new RegExp(`^${deckId}\\t2\\tprivate\\t.*\\tOperator managed$`, 'm'));

    assert.match(await cli(['decks', 'delete', deckId], env), /^deleted dck_/);
    const trash = await cli(['decks', 'list', '--deleted', '--user', suite.user.email], env);
    const [header, row] = trash.split('\n');
    assert.equal(header, 'ID\tCARDS\tDELETED\tPURGE\tTITLE');
    assert.equal(row.split('\t')[0], deckId);
    assert.ok(!(await cli(['decks', 'list', '--user', suite.user.email], env)).includes(deckId));
    assert.deepEqual((await suite.server.api('GET', '/decks/trash', { token: suite.user.token })).body.decks.map((d: { id: string }) => d.id), [deckId]);

    assert.equal(await cli(['decks', 'restore', deckId], env), `restored ${deckId}`);
    assert.equal((await suite.server.api('GET', '/decks/trash', { token: suite.user.token })).body.decks.length, 0);
    assert.equal((await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token })).body.cards.length, 2);
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
