// A store brought up to a chosen set of migrations (on the run's backend), for tests of a
// migration on data that older migrations made: `migrate` runs the given ones, `close` drops it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { openStore, type Store } from '../../src/db/database.ts';
import { dropStore, onPostgres, schemaForDataDir, storeEnvFor } from './backend.ts';

export interface MigratedStore {
  readonly store: Store;
  /** Brings the store up to the latest of these migrations. */
  migrate(migrations: Record<string, Migration>): Promise<void>;
  close(): Promise<void>;
}

export async function storeForMigrations(): Promise<MigratedStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-migration-'));
  const env = storeEnvFor(dataDir);
  const store = await openStore({ dataDir, databaseUrl: env.DATABASE_URL ?? null });
  const schema = onPostgres() ? schemaForDataDir(dataDir) : undefined;
  if (schema !== undefined) await sql`create schema if not exists ${sql.id(schema)}`.execute(store.db);
  return {
    store,
    async migrate(migrations) {
      const migrator = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations }, ...(schema === undefined ? {} : { migrationTableSchema: schema }) });
      const { error } = await migrator.migrateToLatest();
      if (error) throw error as Error;
    },
    async close() {
      await store.close();
      await dropStore(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
