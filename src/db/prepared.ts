// Kysely builds and compiles a query on every call: 10 to 15 µs for a one-row lookup, measured
// (docs/performance.md), on the path of every request (the token lookup) and of every deck read.
// A prepared query is compiled once per dialect and run again with new parameters.
import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from './types.ts';

interface Compilable<R> {
  compile(): CompiledQuery<R>;
}

/**
 * `build` gets placeholder values (never sent to the store) and must use each parameter exactly
 * once, in order: the compiled query's parameters are replaced by the call's.
 */
export function preparedQuery<P extends readonly unknown[], R>(build: (db: Kysely<Database>, ...params: P) => Compilable<R>, placeholders: P) {
  const compiledByAdapter = new WeakMap<object, CompiledQuery<R>>();
  return async (db: Kysely<Database>, ...params: P): Promise<R[]> => {
    const adapter = db.getExecutor().adapter;
    let compiled = compiledByAdapter.get(adapter);
    if (compiled === undefined) {
      compiled = build(db, ...placeholders).compile();
      if (compiled.parameters.length !== params.length) throw new Error('a prepared query must use each parameter exactly once');
      compiledByAdapter.set(adapter, compiled);
    }
    const result = await db.executeQuery<R>({ ...compiled, parameters: params });
    return result.rows;
  };
}
