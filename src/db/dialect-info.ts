import { PostgresAdapter, sql, type CompiledQuery, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import type { Database } from './types.ts';

/**
 * Where the two dialects differ: DDL in migrations (identity columns, text collation), and how a
 * batch of rows is best inserted (insertRows).
 */
/** Any Kysely instance, typed or not (migrations see the database untyped). */
type AnyKysely = Pick<Kysely<Database>, 'getExecutor'>;

export function isPostgres(db: AnyKysely): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The column type for text. On PostgreSQL it is collated "C" (byte order), which is how SQLite
 * compares text: ORDER BY, keyset comparisons and unique checks then agree across both stores,
 * whatever collation the operator's database was created with.
 */
export function textType(db: AnyKysely): 'text' | RawBuilder<unknown> {
  return isPostgres(db) ? sql`text collate "C"` : 'text';
}

/**
 * Inserts a batch of rows. On SQLite, multi-row VALUES statements of 64, 32, ..., 1 rows, each
 * compiled once and prepared once: a statement per batch size (Kysely's build and compile every
 * time, and one cached prepared statement per distinct row count, up to 500 of them: about
 * 145 MB measured, the server's memory growth) cost more than the insert itself
 * (docs/performance.md). The chunks are not one transaction: every row is its own fact (an
 * activity entry) or the caller holds a transaction (a deck's cards). On PostgreSQL, the batch
 * goes as one JSON parameter into a short statement prepared once: a VALUES list sends a
 * parameter per column and row, and PostgreSQL parses and plans it anew for every batch size.
 * Measured on 500-row activity batches: 3.5 against 6.5 µs of Node and 8.5 against 11 µs of
 * PostgreSQL per row. Strings must not hold U+0000, which PostgreSQL refuses in JSON text.
 */
export async function insertRows<T extends keyof Database>(db: Kysely<Database>, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  const columnNames = Object.keys(rows[0]);
  if (!isPostgres(db)) {
    for (let at = 0; at < rows.length;) {
      const size = chunkSize(rows.length - at);
      const chunk = rows.slice(at, at + size);
      const parameters = valuesOf(chunk, columnNames);
      const compiled = compiledInsert(db, table, columnNames, chunk, parameters);
      await db.executeQuery({ ...compiled, parameters });
      at += size;
    }
    return;
  }
  const columns = sql.join(columnNames.map((c) => sql.ref(c)));
  await sql`insert into ${sql.table(table)} (${columns})
    select ${columns} from jsonb_populate_recordset(null::${sql.table(table)}, cast(${JSON.stringify(rows)} as jsonb))`.execute(db);
}

const LARGEST_CHUNK = 64;

/** The largest power of two up to LARGEST_CHUNK that is at most `left`. */
function chunkSize(left: number): number {
  let size = LARGEST_CHUNK;
  while (size > left) size >>= 1;
  return size;
}

function valuesOf(rows: readonly object[], columnNames: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const c of columnNames) values.push((row as Record<string, unknown>)[c]);
  return values;
}

const compiledInserts = new Map<string, CompiledQuery>();

/** The insert of `rows.length` rows into these columns, compiled by Kysely once. */
function compiledInsert<T extends keyof Database>(
  db: Kysely<Database>, table: T, columnNames: readonly string[], rows: Insertable<Database[T]>[], values: readonly unknown[],
): CompiledQuery {
  const key = `${table}(${columnNames.join(',')})x${rows.length}`;
  let compiled = compiledInserts.get(key);
  if (compiled === undefined) {
    compiled = db.insertInto(table).values(rows).compile();
    // Parameters are replaced by position on later calls: they must be the rows' values, row by row.
    if (compiled.parameters.length !== values.length || compiled.parameters.some((p, i) => p !== values[i])) {
      throw new Error(`insertRows: unexpected parameter order for ${table}`);
    }
    compiledInserts.set(key, compiled);
  }
  return compiled;
}
