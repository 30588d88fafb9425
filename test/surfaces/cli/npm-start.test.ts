// `npm start` as an operator runs it, then `kill -TERM` to npm's process (what a process manager or
// a shell's kill sends): the server drains and exits, and nothing is left listening. npm hands the
// signal to its child only; the start script execs the server, so that child is the server.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { after, describe, test } from 'node:test';
import { dropStore, storeEnvFor } from '../../helpers/backend.ts';
import { freePort, ROOT, tempDataDir } from '../../helpers/process.ts';

/** The process ids under `pid`, children first-level then theirs. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((c) => c !== '').map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function alive(pid: number): boolean {
  try {
    return !fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

const commandOf = (pid: number): string => {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
};

async function until(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return check();
}

describe('npm start and SIGTERM', () => {
  const dataDir = tempDataDir();
  after(async () => {
    await dropStore(dataDir);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('should drain and exit the server when npm start gets SIGTERM, leaving nothing listening', async () => {
    // dist/ up to date first (npm start's prestart would build it too, inside the wait below).
    const built = spawnSync(process.execPath, ['scripts/build.ts', '--if-stale'], { cwd: ROOT, stdio: 'ignore' });
    assert.equal(built.status, 0, 'the build of dist/ failed');
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...storeEnvFor(dataDir), PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' };
    delete env.NODE_TEST_CONTEXT;
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    npm.stdout.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    npm.stderr.setEncoding('utf8').on('data', (chunk: string) => { output += chunk; });
    const exited = new Promise<void>((resolve) => { npm.once('exit', () => { resolve(); }); });
    const healthz = () => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status === 200, () => false);
    let started: number[] = [];
    try {
      assert.ok(await until(120_000, healthz), `the server did not start:\n${output}`);
      started = descendants(npm.pid ?? 0);
      // The Node process itself (a shell between npm and it would show the same words).
      const server = started.find((pid) => /^\S*node \S.*(?:src\/server\.ts|dist\/server\.js)/.test(commandOf(pid)));
      assert.ok(server !== undefined, `no server process under npm: ${started.map(commandOf).join(' | ')}`);

      process.kill(npm.pid ?? 0, 'SIGTERM');
      await exited;
      assert.ok(await until(30_000, () => !alive(server)), `the server (pid ${server}) is still running after npm got SIGTERM:\n${output}`);
      assert.equal(await healthz(), false, 'something still answers on the port');
      assert.match(output, /draining in-flight requests/);
    } finally {
      // Whatever was left running (the server orphaned by npm without the fix) is ended here.
      for (const pid of [...started, ...descendants(npm.pid ?? 0)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
    }
  });
});
