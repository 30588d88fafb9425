import { PostgresAdapter, sql, type CompiledQuery, type Insertable, type Kysely, type RawBuilder } from 'kysely';
import { runPerRow } from './sqlite-dialect.ts';
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

/** The column type for bytes: SQLite's blob, PostgreSQL's bytea (both read back as a Buffer). */
export function blobType(db: AnyKysely): 'blob' | 'bytea' {
  return isPostgres(db) ? 'bytea' : 'blob';
}

/**
 * Inserts a batch of rows. On SQLite, one single-row INSERT, compiled by Kysely once and prepared
 * once, run for each row (runPerRow) in the caller's transaction, or else in one transaction for
 * the batch (an activity batch is one commit). Multi-row VALUES statements were slower: SQLite
 * keeps a statement journal for them (each changed page copied to a temporary file first, so that
 * a failing row can be undone alone), about a ninth of an import's CPU, and each row count is a
 * statement of its own (docs/performance.md). On PostgreSQL, the batch goes as one JSON parameter
 * into a short statement prepared once: a VALUES list sends a parameter per column and row, and
 * PostgreSQL parses and plans it anew for every batch size. Measured on 500-row activity batches:
 * 3.5 against 6.5 µs of Node and 8.5 against 11 µs of PostgreSQL per row. Strings must not hold
 * U+0000, which PostgreSQL refuses in JSON text.
 */
export async function insertRows<T extends keyof Database>(db: Kysely<Database>, table: T, rows: Insertable<Database[T]>[]): Promise<void> {
  if (rows.length === 0) return;
  const columnNames = Object.keys(rows[0]);
  if (!isPostgres(db)) {
    const values = valuesOf(rows, columnNames);
    await db.executeQuery(runPerRow(compiledInsert(db, table, columnNames, rows[0], values), values, columnNames.length));
    return;
  }
  const columns = sql.join(columnNames.map((c) => sql.ref(c)));
  await sql`insert into ${sql.table(table)} (${columns})
    select ${columns} from jsonb_populate_recordset(null::${sql.table(table)}, cast(${JSON.stringify(rows)} as jsonb))`.execute(db);
}

function valuesOf(rows: readonly object[], columnNames: readonly string[]): unknown[] {
  const values: unknown[] = [];
  for (const row of rows) for (const c of columnNames) values.push((row as Record<string, unknown>)[c]);
  return values;
}

const compiledInserts = new Map<string, CompiledQuery>();

/** The insert of one row into these columns, compiled by Kysely once. */
function compiledInsert<T extends keyof Database>(
  db: Kysely<Database>, table: T, columnNames: readonly string[], row: Insertable<Database[T]>, values: readonly unknown[],
): CompiledQuery {
  const key = `${table}(${columnNames.join(',')})`;
  let compiled = compiledInserts.get(key);
  if (compiled === undefined) {
    compiled = db.insertInto(table).values(row).compile();
    // Parameters are replaced by position on later calls: they must be the row's values, in order.
    if (compiled.parameters.length !== columnNames.length || compiled.parameters.some((p, i) => p !== values[i])) {
      throw new Error(`insertRows: unexpected parameter order for ${table}`);
    }
    compiledInserts.set(key, compiled);
  }
  return compiled;
}
