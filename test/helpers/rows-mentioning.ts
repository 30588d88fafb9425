// Every row of every table of a test server's store that mentions one of some strings (ids), for
// tests that something was removed for good. The FTS5 table's own shadow tables hold no ids.
import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import { isPostgres } from '../../src/db/dialect-info.ts';

export async function tablesOf(db: Db): Promise<string[]> {
  if (isPostgres(db)) {
    const rows = await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(db);
    return rows.rows.map((r) => r.name);
  }
  const rows = await sql<{ name: string }>`select name from sqlite_master where type = 'table' and name not like 'search_fts%' and name not like 'sqlite_%'`.execute(db);
  return rows.rows.map((r) => r.name);
}

/** `table: row` for each row mentioning one of `needles`, in tables not in `except`. */
export async function rowsMentioning(db: Db, needles: readonly string[], except: readonly string[] = []): Promise<string[]> {
  const found: string[] = [];
  for (const table of await tablesOf(db)) {
    if (except.includes(table)) continue;
    const rows = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows.rows) {
      const text = JSON.stringify(row, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : Buffer.isBuffer(v) ? null : v));
      if (needles.some((n) => text.includes(n))) found.push(`${table}: ${text.slice(0, 200)}`);
    }
  }
  return found;
}
