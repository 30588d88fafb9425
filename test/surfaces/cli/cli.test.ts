import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { ROOT, cli, runCli, runScript, tempDataDir, type Finished } from '../../helpers/process.ts';
import { dropStore, onPostgres } from '../../helpers/backend.ts';
import { buildForSuite } from '../../helpers/server.ts';

const PAT = /^svc_pat_[0-9A-Za-z]{10}_[0-9A-Za-z]{36}$/;

let emailCounter = 0;
const newEmail = () => `cli${++emailCounter}-${process.pid}@example.com`;

function assertFailedWithOneLine(run: Finished, pattern: RegExp): void {
  assert.notEqual(run.code, 0, `expected a non-zero exit, stdout: ${run.stdout}`);
  assert.equal(run.stdout, '');
  const first = run.stderr.split('\n')[0] ?? '';
  assert.match(first, pattern);
}

describe('flashdeck CLI', () => {
  let env: Record<string, string>;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    env = { DATA_DIR: suite.server.dataDir };
  });
  // A user that a test needs but does not test the making of: made by the server's own admin
  // service on the same store, which spares a CLI process (`users add` itself is tested below).
  const addUser = async (email: string) => { await suite.server.app.admin.addUser(email); };

  describe('users add', () => {
    test('should print the new user id and nothing else', async () => {
      const run = await runCli(['users', 'add', newEmail()], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /^usr_[\w-]+\n$/);
    });

    test('should refuse a duplicate email with a stderr line and a non-zero exit', async () => {
      const email = newEmail();
      await addUser(email);
      const run = await runCli(['users', 'add', email.toUpperCase()], env);
      assertFailedWithOneLine(run, /already exists/);
    });

    test('should refuse something that is not an email address', async () => {
      assertFailedWithOneLine(await runCli(['users', 'add', 'not-an-email'], env), /not an email/);
    });
  });

  describe('tokens create', () => {
    test('should print the token and nothing else, and the token should work with the chosen scopes', async () => {
      const email = newEmail();
      await addUser(email);
      const run = await runCli(['tokens', 'create', '--user', email, '--name', 'my script', '--scopes', 'decks:read,reviews:read'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, '');
      assert.ok(run.stdout.endsWith('\n'));
      const token = run.stdout.slice(0, -1);
      assert.match(token, PAT);
      const who = await suite.server.api('GET', '/whoami', { token });
      assert.equal(who.status, 200);
      assert.deepEqual([...who.body.scopes].sort(), ['decks:read', 'reviews:read']);
      assert.equal(who.body.token.name, 'my script');
      assert.equal(token.split('_')[2], who.body.token.prefix);
    });

    test('should set the expiry from --expires-days', async () => {
      const email = newEmail();
      await addUser(email);
      await cli(['tokens', 'create', '--user', email, '--name', 'weekly', '--scopes', 'decks:read', '--expires-days', '7'], env);
      const [, line] = (await cli(['tokens', 'list', '--user', email], env)).split('\n');
      const created = Date.parse(/created (\S+)/.exec(line ?? '')?.[1] ?? '');
      const expires = Date.parse(/expires (\S+)/.exec(line ?? '')?.[1] ?? '');
      assert.equal(expires - created, 7 * 86_400_000);
    });

    test('should refuse an unknown scope', async () => {
      const email = newEmail();
      await addUser(email);
      const run = await runCli(['tokens', 'create', '--user', email, '--name', 'n', '--scopes', 'decks:read,decks:admin'], env);
      assertFailedWithOneLine(run, /scope.*decks:admin/);
    });

    test('should refuse an unknown user', async () => {
      const run = await runCli(['tokens', 'create', '--user', newEmail(), '--name', 'n', '--scopes', 'decks:read'], env);
      assertFailedWithOneLine(run, /no user/);
    });

    test('should refuse an --expires-days other than 7, 30, 90 or 365', async () => {
      const email = newEmail();
      await addUser(email);
      const runs = await Promise.all(['8', 'abc', '0', '-7'].map((days) => runCli(
        ['tokens', 'create', '--user', email, '--name', 'n', '--scopes', 'decks:read', `--expires-days=${days}`], env,
      )));
      for (const run of runs) assertFailedWithOneLine(run, /expir/);
      assert.deepEqual((await cli(['tokens', 'list', '--user', email], env)).split('\n').slice(1), [], 'no token was created');
    });

    test('should refuse a missing --name', async () => {
      const email = newEmail();
      await addUser(email);
      assertFailedWithOneLine(await runCli(['tokens', 'create', '--user', email, '--scopes', 'decks:read'], env), /--name/);
    });
  });

  describe('tokens list and revoke', () => {
    test('should list a token with its id, name, prefix, scopes and status, never its secret', async () => {
      const email = newEmail();
      await addUser(email);
      const token = await cli(['tokens', 'create', '--user', email, '--name', 'listed', '--scopes', 'decks:read,decks:write'], env);
      const who = await suite.server.api('GET', '/whoami', { token });
      const out = await cli(['tokens', 'list', '--user', email], env);
      const [header, row] = out.split('\n');
      assert.deepEqual(header?.split('\t'), ['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES']);
      const fields = (row ?? '').split('\t');
      assert.equal(fields[0], who.body.token.id);
      assert.deepEqual(fields.slice(1, 5), ['listed', who.body.token.prefix, 'decks:read,decks:write', 'active']);
      assert.ok(!out.includes(token.split('_')[3]), 'the secret must not be printed');
    });

    test('should print the header and say on stderr that a user has no tokens', async () => {
      const email = newEmail();
      await addUser(email);
      const run = await runCli(['tokens', 'list', '--user', email], env);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim(), ['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES'].join('\t'));
      assert.match(run.stderr, /no tokens for/);
    });

    test('should revoke a token, show it revoked, and refuse revoking it again or an unknown id', async () => {
      const email = newEmail();
      await addUser(email);
      const token = await cli(['tokens', 'create', '--user', email, '--name', 'gone', '--scopes', 'decks:read'], env);
      const { body } = await suite.server.api('GET', '/whoami', { token });
      const run = await runCli(['tokens', 'revoke', body.token.id], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(await cli(['tokens', 'list', '--user', email], env), /\trevoked\t/);
      assertFailedWithOneLine(await runCli(['tokens', 'revoke', body.token.id], env), /already revoked/);
      assertFailedWithOneLine(await runCli(['tokens', 'revoke', 'tok_doesnotexist'], env), /no token/);
    });

    test('should make the running server refuse a token revoked by the CLI within 5 seconds', async () => {
      const { token, tokenId } = await suite.server.user({ scopes: ['decks:read'] });
      assert.equal((await suite.server.api('GET', '/whoami', { token })).status, 200);
      await cli(['tokens', 'revoke', tokenId], env);
      const deadline = Date.now() + 5000;
      let last;
      do {
        last = await suite.server.api('GET', '/whoami', { token });
        if (last.status === 401) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      } while (Date.now() < deadline);
      assert.equal(last.status, 401, 'the revoked token still worked 5 s after the CLI revoked it');
      assert.equal(last.body.error.code, 'TOKEN_REVOKED');
    });
  });

  describe('tokens activity', () => {
    test('should list the calls made with the token, newest first', async () => {
      const email = newEmail();
      await addUser(email);
      const token = await cli(['tokens', 'create', '--user', email, '--name', 'busy', '--scopes', 'decks:read'], env);
      const calls = [['/whoami', '/api/v1/whoami'], ['/decks', '/api/v1/decks'], ['/decks/capacity', '/api/v1/decks/capacity'], ['/decks/dck_missing', '/api/v1/decks/:deckId']];
      const requestIds: string[] = [];
      let tokenId = '';
      for (const [apiPath] of calls) {
        const res = await suite.server.api('GET', apiPath, { token, headers: { 'user-agent': 'cli-activity-test' } });
        requestIds.push(res.headers.get('x-request-id') ?? '');
        if (apiPath === '/whoami') tokenId = res.body.token.id;
      }
      // The server writes activity in batches a moment after each call.
      let lines: string[] = [];
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        lines = (await cli(['tokens', 'activity', tokenId], env)).split('\n').filter((l) => l !== '').slice(1);
        if (lines.length >= calls.length) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(lines.length, calls.length);
      const rows = lines.map((l) => l.split('\t'));
      assert.deepEqual(rows.map((r) => r[2]), calls.map(([, route]) => route).reverse());
      assert.deepEqual(rows.map((r) => r[8]), [...requestIds].reverse());
      assert.deepEqual(rows.map((r) => r[4]), ['404', '200', '200', '200']);
      assert.deepEqual(rows.map((r) => r[9]), ['DECK_NOT_FOUND', '-', '-', '-'], 'the error code of each call');
      assert.equal(rows[0]?.[3], 'dck_missing');
      assert.ok(rows.every((r) => r[1] === 'GET' && r[7] === 'cli-activity-test'));
      const times = rows.map((r) => Date.parse(r[0]));
      assert.deepEqual(times, [...times].sort((a, b) => b - a));
    });

    test('should refuse an unknown token id', async () => {
      assertFailedWithOneLine(await runCli(['tokens', 'activity', 'tok_nope'], env), /no token/);
    });
  });

  // The one test that goes through npx (every other one runs bin/flashdeck.js with node, see
  // runCli): npx must resolve the package's own bin. npm's update check is a registry request
  // that proves nothing here, so it is turned off.
  test('should run through npx from the project root', async () => {
    const env = { ...process.env, DATA_DIR: suite.server.dataDir, npm_config_update_notifier: 'false' };
    const child = spawn('npx', ['flashdeck', 'users', 'add', newEmail()], { cwd: ROOT, env });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
    const code = await new Promise((resolve) => child.once('close', resolve));
    assert.equal(code, 0);
    assert.match(stdout, /^usr_\S+\n$/);
  });

  test('should reject an unknown command with a non-zero exit', async () => {
    const run = await runCli(['decks', 'shred'], env);
    assert.notEqual(run.code, 0);
    assert.match(run.stderr, /unknown command/);
  });
});

describe('bad environment values', { concurrency: true }, () => {
  // A server that wrongly starts would run forever: runScript kills it after a while, long enough
  // for a loaded machine to load the code (a start-up took 8 s on a busy 2-core machine).
  const server = (env: Record<string, string>) => runScript(path.join('src', 'server.ts'), [], env, 30_000);

  for (const [name, value] of [['PORT', 'abc'], ['RATE_LIMIT_PER_MINUTE', 'x'], ['DECK_LIMIT', 'lots']]) {
    test(`should stop the server at start-up with one line naming ${name}=${value}`, async () => {
      const run = await server({ [name]: value, DATA_DIR: path.join(ROOT, 'does-not-matter-never-created') });
      assert.notEqual(run.code, 0);
      assert.equal(run.stdout, '');
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], new RegExp(name));
    });
  }

  test('should stop the server at start-up with one line naming HOST when it cannot listen there', async () => {
    const dataDir = tempDataDir();
    try {
      const run = await server({ HOST: 'no such host.invalid', DATA_DIR: dataDir });
      assert.equal(run.code, 1);
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0], /^flashdeck: failed to start: cannot listen on HOST=no such host\.invalid PORT=\d+: /);
    } finally {
      await dropStore(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('should stop the server and the CLI with one line naming DATA_DIR when it cannot be a directory', { skip: onPostgres() && 'DATA_DIR is not used on PostgreSQL' }, async () => {
    const parent = tempDataDir();
    const file = path.join(parent, 'a-file');
    fs.writeFileSync(file, '');
    try {
      const dataDir = path.join(file, 'data');
      const run = await server({ DATA_DIR: dataDir });
      assert.equal(run.code, 1);
      assert.equal(run.stderr.split('\n').filter((l) => l !== '').length, 1, run.stderr);
      assert.ok(run.stderr.startsWith(`flashdeck: failed to start: DATA_DIR=${dataDir} cannot hold the store: `), run.stderr);
      const cliRun = await runCli(['users', 'add', newEmail()], { DATA_DIR: dataDir });
      assert.equal(cliRun.code, 1);
      assert.ok(cliRun.stderr.startsWith(`flashdeck: failed: DATA_DIR=${dataDir} cannot hold the store: `), cliRun.stderr);
    } finally {
      fs.rmSync(parent, { recursive: true, force: true });
    }
  });

  test('should stop the CLI with one line naming RATE_LIMIT_PER_MINUTE=x', async () => {
    const run = await runCli(['users', 'add', newEmail()], { RATE_LIMIT_PER_MINUTE: 'x', DATA_DIR: path.join(ROOT, 'does-not-matter-never-created') });
    assert.notEqual(run.code, 0);
    assert.equal(run.stdout, '');
    assert.deepEqual(run.stderr.split('\n').filter((l) => l !== '').length, 1);
    assert.match(run.stderr, /RATE_LIMIT_PER_MINUTE/);
  });
});
