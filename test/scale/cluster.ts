// Several real server processes on one PostgreSQL and one Redis, and the faults to throw at them:
// a private redis-server that can be shut down and restarted, and a TCP proxy in front of
// PostgreSQL whose connections can be cut (safer than stopping the shared cluster).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { dropStore, onPostgres } from '../helpers/backend.ts';
import { OpenApiChecker } from '../helpers/openapi.ts';
import { freePort, startServerProcess, type ServerProcess } from '../helpers/process.ts';
import { apiClient, type TestServer } from '../helpers/server.ts';

/** node:test `skip` for the scale tests: they need the PostgreSQL + Redis run. */
export const SKIP_UNLESS_POSTGRES_REDIS: string | false = onPostgres()
  ? false
  : 'needs PostgreSQL and Redis: runs in the postgres-redis pass of npm test (TEST_DATABASE_URL, TEST_REDIS_URL)';

/** Drops the store of `dataDir` (schema and Redis keys) and the directory itself. */
export async function discardStore(dataDir: string, redisNamespace?: string): Promise<void> {
  await dropStore(dataDir, redisNamespace);
  fs.rmSync(dataDir, { recursive: true, force: true });
}

export interface Instance extends ServerProcess {
  api: TestServer['api'];
}

/** A server process whose API responses are checked like build's: OpenAPI and envelope. */
export async function startInstance(dataDir: string, env: Record<string, string> = {}): Promise<Instance> {
  const proc = await startServerProcess(dataDir, env);
  const document = await (await fetch(`${proc.base}/openapi.json`)).json();
  const api = apiClient(proc.base, new OpenApiChecker(document as never));
  return Object.assign(proc, { api });
}

/** Polls until `check` holds, for at most `ms`; the last value is returned either way. */
export async function waitFor<T>(ms: number, probe: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (check(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function healthz(url: string): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const res = await fetch(`${url}/healthz`);
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') };
}

/** A TCP proxy to `target`; cut() drops every connection and refuses new ones until restore(). */
export class TcpProxy {
  readonly port: number;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<net.Socket>();
  #server: net.Server | null = null;

  private constructor(port: number, target: { host: string; port: number }) {
    this.port = port;
    this.#target = target;
  }

  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  restore(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.#target.port, this.#target.host);
      for (const [a, b] of [[client, upstream], [upstream, client]] as const) {
        this.#sockets.add(a);
        a.on('error', () => b.destroy());
        a.on('close', () => { this.#sockets.delete(a); b.destroy(); });
        a.pipe(b);
      }
    });
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
  }

  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    const closed = server ? new Promise((resolve) => server.close(resolve)) : Promise.resolve();
    for (const socket of this.#sockets) socket.destroy();
    await closed;
  }
}

/** A redis-server of the test's own, on a free port, that can be shut down and started again. */
export class PrivateRedis {
  readonly port: number;
  #child: ChildProcess | null = null;

  private constructor(port: number) {
    this.port = port;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<PrivateRedis> {
    const redis = new PrivateRedis(await freePort());
    await redis.restart();
    return redis;
  }

  async restart(): Promise<void> {
    const child = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    this.#child = child;
    await waitFor(10_000, () => ping(this.port), (ok) => ok);
  }

  /** `redis-cli shutdown nosave`, as an operator would stop it. */
  async shutdown(): Promise<void> {
    const child = this.#child;
    this.#child = null;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    spawn('redis-cli', ['-p', String(this.port), 'shutdown', 'nosave'], { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(1000);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => { socket.destroy(); resolve(data.toString().startsWith('+PONG')); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}
