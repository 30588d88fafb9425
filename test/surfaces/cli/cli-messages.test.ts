// What the flashdeck command says when it is called without a command, asked its version, given
// an unknown scope or a bad variable: complete enough to act on without reading the source.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { TOKEN_SCOPES } from '../../../src/modules/identity/scopes.ts';
import { ROOT, cli, runCli } from '../../helpers/process.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { newEmail } from '../../helpers/web.ts';

const VERSION = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

describe('flashdeck CLI messages', () => {
  let env: Record<string, string>;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    env = { DATA_DIR: suite.server.dataDir };
  });

  test('should print its version for --version', async () => {
    const run = await runCli(['--version'], env);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `flashdeck ${VERSION}\n`);
  });

  test('should answer a call without a command with the usage, every command and scope in it, and a non-zero exit', async () => {
    const run = await runCli([], env);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    for (const command of ['users add', 'users set-password', 'tokens create', 'tokens list', 'tokens revoke', 'tokens activity', '--version']) {
      assert.ok(run.stderr.includes(`flashdeck ${command}`), command);
    }
    for (const scope of TOKEN_SCOPES) assert.ok(run.stderr.includes(scope), scope);
    const help = await runCli(['--help'], env);
    assert.equal(help.code, 0);
    assert.ok(help.stdout.includes('flashdeck tokens create'));
  });

  test('should name an unknown option without Node\'s hint about positional arguments', async () => {
    const run = await runCli(['--frob'], env);
    assert.equal(run.code, 1);
    assert.match(run.stderr.split('\n')[0] ?? '', /^flashdeck: Unknown option '--frob'$/);
  });

  test('should list the valid scopes when a scope is unknown', async () => {
    const email = newEmail();
    await cli(['users', 'add', email], env);
    const run = await runCli(['tokens', 'create', '--user', email, '--name', 'n', '--scopes', 'nope'], env);
    assert.equal(run.code, 1);
    const line = run.stderr.split('\n')[0] ?? '';
    assert.match(line, /unknown scope: nope/);
    for (const scope of TOKEN_SCOPES) assert.ok(line.includes(scope), `${scope} in: ${line}`);
  });

  test('should name DECK_LIMIT and what it accepts when its value is not one', async () => {
    const run = await runCli(['users', 'add', newEmail()], { ...env, DECK_LIMIT: 'lots' });
    assert.equal(run.code, 1);
    assert.equal(run.stderr, 'flashdeck: DECK_LIMIT must be a whole number of decks per user or "none" (no limit), got "lots"\n');
  });
});
