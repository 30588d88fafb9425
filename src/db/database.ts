// The store: SQLite (embedded, default) or PostgreSQL, chosen once here from the config.
// Feature code sees only Kysely<Database> and never asks which one it got.
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator, type Migration, type MigrationProvider } from 'kysely/migration';
import { CachedSqliteDialect } from './sqlite-dialect.ts';
import type { Database } from './types.ts';
import * as m0001 from './migrations/0001-initial.ts';
import * as m0002 from './migrations/0002-reviews.ts';

export type Db = Kysely<Database>;

const MIGRATIONS: Record<string, Migration> = {
  '0001-initial': m0001,
  '0002-reviews': m0002,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return MIGRATIONS;
  }
}

export interface StoreOptions {
  dataDir: string;
  databaseUrl: string | null;
  /** PostgreSQL only: run in this schema (created if missing); tests use one per run. */
  pgSchema?: string;
}

export interface Store {
  db: Db;
  kind: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'flashdeck.sqlite');
}

export function openStore(options: StoreOptions): Store {
  if (options.databaseUrl !== null) {
    const schema = options.pgSchema;
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: 10,
      connectionTimeoutMillis: 5000,
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    pool.on('error', () => { /* a dropped idle connection; the next query reconnects */ });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, kind: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(options.dataDir, { recursive: true });
  const sqlite = new BetterSqlite3(sqliteFile(options.dataDir));
  // WAL lets the CLI read and write while the server runs; NORMAL sync is durable against a
  // killed process (the OS keeps the written pages), which is the crash model we promise.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new CachedSqliteDialect(sqlite) });
  return { db, kind: 'sqlite', close: () => db.destroy() };
}

export async function migrateToLatest(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${error instanceof Error ? error.message : String(error)}`);
  }
}
