// The store: SQLite (embedded, default) or PostgreSQL, chosen once here from the config.
// Feature code sees only Kysely<Database> and never asks which one it got.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, type DatabaseIntrospector, type SchemaMetadata, type TableMetadata } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { isPostgres } from './dialect-info.ts';
import { CachedSqliteDialect } from './sqlite-dialect.ts';
import type { Database } from './types.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0002 from './migrations/0002-reviews.ts';
import * as m0003 from './migrations/0003-accounts.ts';
import * as m0004 from './migrations/0004-oauth.ts';
import * as m0006 from './migrations/0006-media.ts';
import * as m0007 from './migrations/0007-deck-trash-and-search.ts';
import * as m0008 from './migrations/0008-review-extensions.ts';
import * as m0009 from './migrations/0009-activity-error-code.ts';
import * as m0010 from './migrations/0010-search-words-per-user.ts';

export type Db = Kysely<Database>;

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-reviews': m0002,
  '0003-accounts': m0003,
  '0004-oauth': m0004,
  '0006-media': m0006,
  '0007-deck-trash-and-search': m0007,
  '0008-review-extensions': m0008,
  '0009-activity-error-code': m0009,
  '0010-search-words-per-user': m0010,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export interface StoreOptions {
  dataDir: string;
  /** PostgreSQL; a schema of its own is named in the URL (`?options=-c search_path=NAME`). */
  databaseUrl: string | null;
}

export interface Store {
  db: Db;
  close(): Promise<void>;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'flashdeck.sqlite');
}

export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.databaseUrl !== null) {
    // Loaded only for PostgreSQL: pg is about 10 MB of an embedded-store server's memory.
    const { default: pg } = await import('pg');
    const { PreparingClient } = await import('./pg-client.ts');
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      // Per instance: N instances hold up to N x 10 connections (docs/deployment.md).
      max: PG_POOL_SIZE,
      // An unreachable server fails the request (503) in seconds instead of queueing it forever.
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      keepAlive: true,
      application_name: 'flashdeck',
      Client: PreparingClient,
    });
    // A dropped connection is discarded by the pool and the next checkout opens a new one, so the
    // instance recovers by itself when PostgreSQL returns. A client checked out when its connection
    // drops emits 'error' too, which would crash the process without a listener: its request gets
    // the query error instead (503), and the pool discards it on release.
    pool.on('error', () => {});
    pool.on('connect', (client) => { client.on('error', () => {}); });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, close: () => db.destroy() };
  }
  let sqlite: BetterSqlite3.Database;
  try {
    fs.mkdirSync(options.dataDir, { recursive: true });
    sqlite = new BetterSqlite3(sqliteFile(options.dataDir));
  } catch (error) {
    // The file system names a path; the operator set DATA_DIR (README: a bad value is named).
    throw new Error(`DATA_DIR=${options.dataDir} cannot hold the store: ${error instanceof Error ? error.message : String(error)}`);
  }
  // WAL lets the CLI read and write while the server runs; NORMAL sync is durable against a
  // killed process (the OS keeps the written pages), which is the crash model we promise.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  // Checkpoint every 4000 pages (16 MB of WAL) rather than SQLite's 1000: a deck's card ids are
  // random, so every import rewrites a couple of hundred pages of their index, and a larger WAL
  // copies each such page to the database once for several imports. Measured on 250-card
  // imports: a fifth less CPU per import, commit time halved (docs/performance.md).
  sqlite.pragma('wal_autocheckpoint = 4000');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new CachedSqliteDialect(sqlite) });
  return { db, close: () => db.destroy() };
}

export const PG_POOL_SIZE = 10;

/**
 * Brings the schema up to date. Safe when several instances (or the CLI) start at once: on
 * PostgreSQL a session advisory lock, per schema, serialises whole runs, because Kysely's own lock
 * only covers running migrations and not creating its bookkeeping tables, which can race.
 */
export async function migrateToLatest(db: Db): Promise<void> {
  if (!isPostgres(db)) return runMigrations(db);
  await db.connection().execute(async (conn) => {
    const key = sql`hashtext('flashdeck:migrate'), hashtext(current_setting('search_path'))`;
    await sql`select pg_advisory_lock(${key})`.execute(conn);
    try {
      await runMigrations(db, await ensureSchema(conn));
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(conn);
    }
  });
}

/**
 * The schema the tables live in. One named first in search_path (DATABASE_URL
 * `?options=-c search_path=NAME`) is created if it does not exist yet, so a deployment (or a test
 * run) can live in its own schema.
 */
async function ensureSchema(conn: Db): Promise<string> {
  const current = async () => (await sql<{ path: string; current: string | null }>`select current_setting('search_path') as path, current_schema() as current`.execute(conn)).rows.at(0);
  const row = await current();
  if (row?.current) return row.current;
  const first = (row?.path.split(',')[0] ?? '').trim().replace(/^"(.*)"$/, '$1');
  if (first === '' || first === '$user') throw new Error('DATABASE_URL names no existing schema in search_path');
  await sql`create schema if not exists ${sql.id(first)}`.execute(conn);
  return first;
}

/**
 * `db` whose introspection sees only `schema`. Kysely's Migrator looks for its bookkeeping tables
 * with an introspection query over every schema of the database, which fails when another schema
 * is dropped meanwhile (a relation named by the query vanishes) and grows with the database.
 */
function introspectingOnly(db: Db, schema: string): Db {
  const introspection: DatabaseIntrospector = {
    getSchemas: async () => (await sql<SchemaMetadata>`select nspname as name from pg_catalog.pg_namespace where nspname = ${schema}`.execute(db)).rows,
    getTables: async () => (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db))
      .rows.map((r): TableMetadata => ({ name: r.name, schema, isView: false, isForeign: false, columns: [] })),
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === 'introspection') return introspection;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

async function runMigrations(db: Db, schema?: string): Promise<void> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one is ours.
  const migrator = schema
    ? new Migrator({ db: introspectingOnly(db, schema), provider: new StaticMigrationProvider(), migrationTableSchema: schema })
    : new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
