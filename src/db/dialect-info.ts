import { PostgresAdapter, type Kysely } from 'kysely';

/** For migrations only: the one place where the two dialects' DDL differs (identity columns). */
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
