// pg's Client with server-side prepared statements for the short queries every request runs (the
// token and deck lookups, the compare-and-set writes). Kysely sends each query as text; unnamed,
// PostgreSQL parses and plans it again every time. Measured on this machine: a one-row lookup
// costs PostgreSQL ~50 µs unnamed and ~18 µs named, and the database shares the cores with the
// instances. Each connection prepares a statement the first time it meets its text.
import { createHash } from 'node:crypto';
import pg from 'pg';

// Long texts are the multi-row inserts, whose text varies with the row count: left unnamed, so a
// connection holds a bounded set of statements.
const MAX_PREPARED_TEXT = 1500;
const PREPARABLE = /^\s*(select|insert|update|delete|with)\b/i;
const names = new Map<string, string>();

function nameOf(text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    name = `fd_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (names.size > 5000) names.clear();
    names.set(text, name);
  }
  return name;
}

export class PreparingClient extends pg.Client {
  /** Statements this connection must no longer run by name (their result type changed). */
  readonly #unnamed = new Set<string>();

  // pg's overloads (callbacks, config objects, submittables) pass through untouched; only Kysely's
  // form, query(text, values) returning a promise, is prepared.
  query(...args: any[]): any {
    const [text, values] = args;
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(values) || text.length > MAX_PREPARED_TEXT || !PREPARABLE.test(text)) {
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const name = nameOf(text);
    if (this.#unnamed.has(name)) return super.query(text, values);
    return super.query({ name, text, values }).catch((error: unknown) => {
      // A migration by another instance changed a table behind a `select *`: PostgreSQL refuses
      // the old plan ("cached plan must not change result type"); run it unnamed from now on.
      if ((error as { code?: string }).code !== '0A000') throw error;
      this.#unnamed.add(name);
      return super.query(text, values);
    });
  }
}
