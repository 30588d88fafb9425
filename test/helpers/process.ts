// The server and the CLI as real child processes, the way an operator runs them.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { storeEnvFor, TEST_ENV } from './backend.ts';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

// The project's Node 24 runs this file (npx node / npm test); children use the same binary so
// type stripping works even where the machine's own node is older.
if (Number(process.versions.node.split('.')[0]) < 24) throw new Error(`tests need Node 24, running ${process.version}`);
const NODE = process.execPath;

/** The environment of a child: the caller's, minus the test runner's marker, plus `env`. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env, ...TEST_ENV, LOG_LEVEL: 'warn', ...storeEnvFor(env.DATA_DIR), ...env };
  delete out.NODE_TEST_CONTEXT;
  return out;
}

export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-proc-'));
}

/** A port nobody listens on right now (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk; });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk; });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs a script of the project to its end; killed (and so failing) after `timeoutMs`. */
const START_UP_WAIT_MS = 60_000;

export function runScript(file: string, args: string[], env: Record<string, string>, timeoutMs = 60_000, input?: string): Promise<Finished> {
  const child = spawn(NODE, [path.join(ROOT, file), ...args], { cwd: ROOT, env: childEnv(env), stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  if (input !== undefined) child.stdin?.end(input);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return collect(child).finally(() => clearTimeout(timer));
}

/** `flashdeck ARGS` through the package's bin entry (what `npx flashdeck` runs). */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<Finished> {
  return runScript(path.join('bin', 'flashdeck.js'), args, env, undefined, input);
}

/** `flashdeck ARGS` that must succeed; returns its stdout without the final newline. */
export async function cli(args: string[], env: Record<string, string>): Promise<string> {
  const run = await runCli(args, env);
  if (run.code !== 0) throw new Error(`flashdeck ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout.replace(/\n$/, '');
}

/** A user and a token made with the CLI on `dataDir`. */
export async function cliUserAndToken(dataDir: string, email: string, scopes = 'decks:read,decks:write'): Promise<{ userId: string; token: string }> {
  const env = { DATA_DIR: dataDir };
  const userId = await cli(['users', 'add', email], env);
  const token = await cli(['tokens', 'create', '--user', email, '--name', 'proc test', '--scopes', scopes], env);
  return { userId, token };
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  base: string;
  /** Resolves when the process ends, with what it printed. */
  exited: Promise<Finished>;
  /** Sends SIGKILL (if still running) and waits for the exit. */
  kill(): Promise<Finished>;
}

/** `node src/server.ts` on a free port, resolved once GET /healthz answers 200. */
export async function startServerProcess(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(NODE, [path.join(ROOT, 'src', 'server.ts')], {
    cwd: ROOT,
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '100000', RATE_LIMIT_PER_DAY: '1000000', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = collect(child);
  let done = false;
  void exited.finally(() => { done = true; });
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    child, port, url, base: `${url}/api/v1`, exited,
    async kill() {
      if (!done) child.kill('SIGKILL');
      return exited;
    },
  };
  // Start-up is not what these tests measure: a busy 2-core machine took over 15 s to load the code.
  const deadline = Date.now() + START_UP_WAIT_MS;
  while (Date.now() < deadline) {
    if (done) {
      const out = await exited;
      throw new Error(`server exited during start-up (${out.code ?? out.signal}): ${out.stderr}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.status === 200) return server;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await server.kill();
  throw new Error(`server did not answer /healthz within ${START_UP_WAIT_MS / 1000} s`);
}
