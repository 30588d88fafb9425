// The SQL a piece of work runs, for tests that pin how many reads or writes a call costs.
import type { CompiledQuery, DatabaseConnection } from 'kysely';
import type { Db } from '../../src/db/database.ts';

export /** The SQL text of every statement `db` runs while `work` does (transactions included). */
async function statementsOf(db: Db, work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  type Provide = (consumer: (connection: DatabaseConnection) => Promise<unknown>) => Promise<unknown>;
  const executor = db.getExecutor() as unknown as { provideConnection: Provide };
  const provide = executor.provideConnection;
  executor.provideConnection = (consumer) => provide.call(executor, (connection) => consumer({
    executeQuery: (query: CompiledQuery) => {
      seen.push(query.sql);
      return connection.executeQuery(query);
    },
    streamQuery: connection.streamQuery.bind(connection),
  }));
  try {
    await work();
  } finally {
    executor.provideConnection = provide;
  }
  return seen;
}
