import { PostgresAdapter, sql, type Kysely, type RawBuilder } from 'kysely';

/** For migrations only: the one place where the two dialects' DDL differs (identity columns, text collation). */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * The column type for text. On PostgreSQL it is collated "C" (byte order), which is how SQLite
 * compares text: ORDER BY, keyset comparisons and unique checks then agree across both stores,
 * whatever collation the operator's database was created with.
 */
export function textType(db: Kysely<any>): 'text' | RawBuilder<unknown> {
  return isPostgres(db) ? sql`text collate "C"` : 'text';
}
