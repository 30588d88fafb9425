// Which store the suite runs on. `npm test` (scripts/test.ts) runs it twice: on the embedded
// store, then with FLASHDECK_TEST_BACKEND=postgres-redis against TEST_DATABASE_URL and
// TEST_REDIS_URL. On PostgreSQL every data directory maps to its own schema (named from the run
// and the directory), so a server, and the CLI or server processes a test starts on the same
// DATA_DIR, share one store exactly as they share the SQLite file; schemas are dropped after.
import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';

export type BackendName = 'sqlite' | 'postgres-redis';

/**
 * Settings every test server and child process starts with unless the test says otherwise:
 * scrypt at N=2^10 instead of 2^15 (about 1/30 of the CPU per hash), since what most tests pass
 * through sign-up and sign-in is not the hash. Tests of the hashing queue set PASSWORD_HASH_COST
 * back to 15.
 */
export const TEST_ENV: Readonly<Record<string, string>> = Object.freeze({ PASSWORD_HASH_COST: '10' });

export function testBackend(): BackendName {
  const name = process.env.FLASHDECK_TEST_BACKEND ?? 'sqlite';
  if (name === 'sqlite') return 'sqlite';
  if (name !== 'postgres-redis') throw new Error(`FLASHDECK_TEST_BACKEND must be sqlite or postgres-redis, got "${name}"`);
  if (!process.env.TEST_DATABASE_URL || !process.env.TEST_REDIS_URL) {
    throw new Error('FLASHDECK_TEST_BACKEND=postgres-redis needs TEST_DATABASE_URL and TEST_REDIS_URL');
  }
  return name;
}

export function onPostgres(): boolean {
  return testBackend() === 'postgres-redis';
}

/** Why the PostgreSQL and Redis runs are skipped here, or null when they can run. */
export function postgresRedisSkipReason(): string | null {
  if (process.env.TEST_DATABASE_URL && process.env.TEST_REDIS_URL) return null;
  return 'TEST_DATABASE_URL and TEST_REDIS_URL are not both set';
}

/** Schemas of one `npm test` run share this prefix, so the runner can sweep what a crash left. */
export function runSchemaPrefix(): string {
  const run = process.env.FLASHDECK_TEST_RUN_ID ?? (process.env.FLASHDECK_TEST_RUN_ID = randomBytes(4).toString('hex'));
  return `t_${run}_`;
}

export function schemaForDataDir(dataDir: string): string {
  return runSchemaPrefix() + createHash('sha256').update(dataDir).digest('hex').slice(0, 16);
}

/** DATABASE_URL with a search_path, the way an operator puts a deployment in its own schema. */
export function databaseUrlWithSchema(base: string, schema: string): string {
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/**
 * The store variables a process on `dataDir` needs on this run's backend: nothing on SQLite
 * (DATA_DIR says it all), DATABASE_URL and REDIS_URL on PostgreSQL. The server migrates, and so
 * creates the schema, on start.
 */
export function storeEnvFor(dataDir: string | undefined): Record<string, string> {
  if (dataDir === undefined || testBackend() === 'sqlite') return {};
  return {
    DATABASE_URL: databaseUrlWithSchema(process.env.TEST_DATABASE_URL as string, schemaForDataDir(dataDir)),
    REDIS_URL: process.env.TEST_REDIS_URL as string,
  };
}

/** Redis keys of a test server: under its own namespace, dropped with it. */
export function redisNamespaceFor(dataDir: string): string {
  return `flashdeck-test:${schemaForDataDir(dataDir)}:`;
}

/**
 * Removes what a data directory's store left on PostgreSQL and Redis: the schema, the Redis keys
 * under `namespace`, and (for child processes, which use the default namespace) the rate-limit
 * keys of the schema's tokens.
 */
export async function dropStore(dataDir: string, namespace?: string): Promise<void> {
  if (testBackend() === 'sqlite') return;
  await dropSchemas([schemaForDataDir(dataDir)], namespace === undefined ? [] : [namespace]);
}

export async function dropSchemas(schemas: string[], namespaces: string[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  const redis = new Redis(process.env.TEST_REDIS_URL as string, { lazyConnect: true, maxRetriesPerRequest: 1, disableClientInfo: true });
  redis.on('error', () => {});
  try {
    await client.connect();
    await redis.connect();
    const tokenIds = new Set<string>();
    for (const schema of schemas) {
      const tokens = await client.query<{ id: string }>(`select id from ${pg.escapeIdentifier(schema)}.tokens`).catch(() => ({ rows: [] }));
      for (const { id } of tokens.rows) tokenIds.add(id);
      // Quiet: a concurrent drop of the same schema, or one never created, is fine.
      await client.query(`drop schema if exists ${pg.escapeIdentifier(schema)} cascade`).catch(() => {});
    }
    for (const ns of namespaces) await deleteKeys(redis, `${ns}*`, () => true);
    // flashdeck:rl:tok:<window>:<tokenId>:<window index>
    if (tokenIds.size > 0) await deleteKeys(redis, 'flashdeck:rl:tok:*', (key) => tokenIds.has(key.split(':')[4] ?? ''));
  } finally {
    await client.end().catch(() => {});
    redis.disconnect();
  }
}

async function deleteKeys(redis: Redis, pattern: string, chosen: (key: string) => boolean): Promise<void> {
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    const keys = found.filter(chosen);
    if (keys.length > 0) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** Every schema this run created (a crashed test leaves some behind). */
export async function runSchemas(): Promise<string[]> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      'select nspname as name from pg_namespace where starts_with(nspname, $1)', [runSchemaPrefix()],
    );
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}
