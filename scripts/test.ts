// `npm test`: the whole node:test suite on the embedded store, then the same suite again on
// PostgreSQL + Redis (FLASHDECK_TEST_BACKEND=postgres-redis) when TEST_DATABASE_URL and
// TEST_REDIS_URL are set; otherwise that run is skipped with the reason. Exits non-zero if either
// run fails. Extra arguments (test files) replace the default glob in both runs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { dropSchemas, postgresRedisSkipReason, runSchemas } from '../test/helpers/backend.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const files = process.argv.slice(2);
const args = ['--test', '--test-concurrency=2', ...(files.length > 0 ? files : ['test/**/*.test.ts'])];

function run(label: string, env: NodeJS.ProcessEnv): Promise<number> {
  process.stdout.write(`\n== tests on ${label}\n`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: 'inherit' });
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const results: string[] = [];
  const base = { ...process.env };
  delete base.FLASHDECK_TEST_BACKEND;
  // Every test file is its own process, and many start the CLI or the server as children: V8's
  // compile cache (checked against each file's content) spares each of them part of loading
  // src/ again, about a tenth of a test file's CPU time.
  base.NODE_COMPILE_CACHE ??= path.join(ROOT, 'node_modules', '.cache', 'node-compile-cache');
  const sqlite = await run('SQLite (embedded store, in-process limits)', { ...base, FLASHDECK_TEST_BACKEND: 'sqlite' });
  results.push(`SQLite: ${sqlite === 0 ? 'pass' : 'FAIL'}`);

  let postgres = 0;
  const skip = postgresRedisSkipReason();
  if (skip !== null) {
    process.stdout.write(`\n== tests on PostgreSQL + Redis: skipped (${skip})\n`);
    results.push(`PostgreSQL + Redis: skipped (${skip})`);
  } else {
    // Every schema of this run starts with its id, so the sweep below finds what a crash left.
    const runId = randomBytes(4).toString('hex');
    process.env.FLASHDECK_TEST_RUN_ID = runId;
    process.env.FLASHDECK_TEST_BACKEND = 'postgres-redis';
    postgres = await run('PostgreSQL + Redis', { ...base, FLASHDECK_TEST_BACKEND: 'postgres-redis', FLASHDECK_TEST_RUN_ID: runId });
    try {
      const left = await runSchemas();
      if (left.length > 0) await dropSchemas(left);
    } catch (error) {
      process.stdout.write(`note: could not sweep this run's schemas: ${error instanceof Error ? error.message : String(error)}\n`);
    }
    results.push(`PostgreSQL + Redis: ${postgres === 0 ? 'pass' : 'FAIL'}`);
  }
  process.stdout.write(`\n== summary\n${results.map((r) => `  ${r}`).join('\n')}\n`);
  return sqlite === 0 && postgres === 0 ? 0 : 1;
}

main().then((code) => process.exit(code), (error: unknown) => {
  process.stderr.write(`test runner failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
