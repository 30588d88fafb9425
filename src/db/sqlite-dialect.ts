// better-sqlite3 behind Kysely, with three changes from Kysely's own SqliteDriver:
// - prepared statements are cached (prepare costs more than most of our queries);
// - transactions start with BEGIN IMMEDIATE, so a writer never fails to upgrade its read lock
//   while another process (the CLI) writes the same file: it waits on busy_timeout instead;
// - a query made by `runPerRow` runs its one-row statement once per row (insertRows).
import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler,
  type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryResult,
} from 'kysely';

/**
 * A one-row statement and the values of many rows, one row after another (`rowWidth` values each):
 * the connection runs the statement once per row, in the caller's transaction or else in one of
 * its own. Made by runPerRow; only for this dialect (Kysely hands the query to the connection as
 * it is).
 */
interface PerRowQuery extends CompiledQuery {
  readonly rowWidth: number;
}

/** `compiled` (a statement with `rowWidth` parameters) to run once for each row of `values`. */
export function runPerRow(compiled: CompiledQuery, values: readonly unknown[], rowWidth: number): CompiledQuery {
  if (compiled.parameters.length !== rowWidth || values.length % rowWidth !== 0) throw new Error('runPerRow: values are not whole rows');
  const query: PerRowQuery = { ...compiled, parameters: values, rowWidth };
  return query;
}

class CachedSqliteConnection implements DatabaseConnection {
  readonly #db: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    let stmt = this.#statements.get(sql);
    if (stmt === undefined) {
      stmt = this.#db.prepare(sql);
      if (this.#statements.size > 500) this.#statements.clear();
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const stmt = this.#prepare(compiled.sql);
    const params = compiled.parameters as unknown[];
    const rowWidth = (compiled as Partial<PerRowQuery>).rowWidth;
    if (rowWidth !== undefined) return { numAffectedRows: BigInt(this.#runPerRow(stmt, params, rowWidth)), rows: [] };
    if (stmt.reader) return { rows: stmt.all(params) as R[] };
    const { changes, lastInsertRowid } = stmt.run(params);
    return {
      insertId: BigInt(lastInsertRowid),
      numAffectedRows: BigInt(changes),
      rows: [],
    };
  }

  /**
   * One run per row. A one-row INSERT needs no statement journal (a multi-row one writes each
   * page it changes to a temporary file first, in case a later row fails: a ninth of an import's
   * CPU, docs/performance.md) and no per-size statement. Outside a transaction the rows go in one
   * of their own, so they cost one commit, not one each.
   */
  #runPerRow(stmt: BetterSqlite3.Statement, params: readonly unknown[], rowWidth: number): number {
    const run = () => {
      let changes = 0;
      for (let at = 0; at < params.length; at += rowWidth) changes += stmt.run(params.slice(at, at + rowWidth)).changes;
      return changes;
    };
    return this.#db.inTransaction ? run() : this.#db.transaction(run).immediate();
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not used');
  }
}

class CachedSqliteDriver implements Driver {
  readonly #db: BetterSqlite3.Database;
  readonly #connection: CachedSqliteConnection;

  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
    this.#connection = new CachedSqliteConnection(db);
  }

  async init(): Promise<void> {}
  async acquireConnection(): Promise<DatabaseConnection> {
    return this.#connection;
  }
  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }
  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {
    this.#db.close();
  }
}

export class CachedSqliteDialect implements Dialect {
  readonly #db: BetterSqlite3.Database;
  constructor(db: BetterSqlite3.Database) {
    this.#db = db;
  }
  createDriver(): Driver {
    return new CachedSqliteDriver(this.#db);
  }
  createQueryCompiler() {
    return new SqliteQueryCompiler();
  }
  createAdapter() {
    return new SqliteAdapter();
  }
  // Kysely's Dialect interface: introspection is for any schema.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  createIntrospector(db: Kysely<any>) {
    return new SqliteIntrospector(db);
  }
}
