import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cli, runCli } from '../../helpers/process.ts';
import { buildForSuite } from '../../helpers/server.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/anki');

describe('flashdeck import and export', () => {
  let env: Record<string, string>;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    env = { DATA_DIR: suite.server.dataDir };
  });

  test('should import an Anki package for a user and list its decks', async () => {
    const out = await cli(['import', path.join(FIXTURES, 'genanki-js.apkg'), '--user', suite.user.email], env);
    const [header, ...rows] = out.split('\n');
    assert.equal(header, 'DECK_ID\tCARDS\tTITLE');
    assert.deepEqual(rows.map((r) => r.split('\t').slice(1)).sort(), [['1', 'Chemistry'], ['3', 'Geography::Europe']]);
    const deckId = rows[0].split('\t')[0];
    const res = await suite.server.api('GET', `/decks/${deckId}`, { token: suite.user.token });
    assert.equal(res.status, 200);
  });

  test('should import a CSV file with a title, and export it back as CSV on stdout', async () => {
    const file = path.join(suite.server.dataDir, 'cards.csv');
    fs.writeFileSync(file, 'front,back,tags\nQ1,A1,x y\n"Q, 2",A2,\n');
    const out = await cli(['import', file, '--user', suite.user.email, '--title', 'From CSV'], env);
    const deckId = out.split('\n')[1].split('\t')[0];
    const csv = await cli(['export', deckId, '--format', 'csv'], env);
    assert.equal(csv, 'front,back,tags,frontType,backType\r\nQ1,A1,x y,markdown,markdown\r\n"Q, 2",A2,,markdown,markdown\r');
  });

  test('should export an Anki package to a file that imports back to the same cards', async () => {
    const created = await suite.server.api('POST', '/decks/import', { token: suite.user.token, json: { deck: { title: 'Round' }, cards: [{ front: 'Q', back: '**A**' }] } });
    const file = path.join(suite.server.dataDir, 'round.apkg');
    const run = await runCli(['export', created.body.deckId, '--format', 'apkg', '--out', file], env);
    assert.equal(run.code, 0, run.stderr);
    const out = await cli(['import', file, '--user', suite.user.email], env);
    const copyId = out.split('\n')[1].split('\t')[0];
    const [original, copy] = await Promise.all([created.body.deckId, copyId].map(async (id) => (await suite.server.api('GET', `/decks/${id}`, { token: suite.user.token })).body));
    assert.deepEqual(copy.cards.map((c: { front: string; back: string }) => [c.front, c.back]), original.cards.map((c: { front: string; back: string }) => [c.front, c.back]));
    const md = await cli(['export', created.body.deckId, '--format', 'md'], env);
    assert.match(md, /^---\n/);
  });

  test('should refuse an unknown format and a file of another kind, naming what it takes', async () => {
    const bad = await runCli(['export', 'dck_x', '--format', 'pdf'], env);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--format must be apkg, csv or md/);
    const kind = await runCli(['import', 'deck.txt', '--user', suite.user.email], env);
    assert.equal(kind.code, 1);
    assert.match(kind.stderr, /\.apkg, \.colpkg, \.csv, \.md or \.json/);
    const missing = await runCli(['export', 'dck_doesnotexist', '--format', 'csv'], env);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /No deck has the id/);
  });
});
