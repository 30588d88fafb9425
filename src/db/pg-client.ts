// pg's Client, adapted for the queries Kysely sends (query(text, values)):
// - server-side prepared statements for the short queries every request runs (the token and deck
//   lookups, the compare-and-set writes). Unnamed, PostgreSQL parses and plans a query again every
//   time; measured on this machine, a one-row lookup costs PostgreSQL ~50 µs unnamed and ~18 µs
//   named, and the database shares the cores with the instances;
// - text with U+0000, which SQLite stores and PostgreSQL's text type refuses (a deck title or
//   description may hold one): stored escaped, read back unescaped, so both stores return the
//   same bytes. Only strings holding U+0000 or the escape character itself are touched.
import { createHash } from 'node:crypto';
import pg from 'pg';

// Long texts are the multi-row inserts, whose text varies with the row count: left unnamed, so a
// connection holds a bounded set of statements.
const MAX_PREPARED_TEXT = 1500;
const PREPARABLE = /^\s*(?:select|insert|update|delete|with)\b/i;
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

// U+FFFF (a noncharacter) escapes: U+0000 -> U+FFFF '0', U+FFFF -> U+FFFF '1'.
const ESC = '\uFFFF';
const NEEDS_ESCAPE = /[\0\uFFFF]/;
const ESCAPED = /\uFFFF[01]/g;

function escapeNul(value: string): string {
  return NEEDS_ESCAPE.test(value) ? value.replace(/[\0\uFFFF]/g, (ch) => (ch === ESC ? `${ESC}1` : `${ESC}0`)) : value;
}

function unescapeNul(value: string): string {
  if (!value.includes(ESC)) return value;
  return value.replace(ESCAPED, (m) => (m === `${ESC}0` ? '\u0000' : ESC));
}

function escapeValues(values: unknown[]): unknown[] {
  return values.some((v) => typeof v === 'string' && NEEDS_ESCAPE.test(v))
    ? values.map((v) => (typeof v === 'string' ? escapeNul(v) : v))
    : values;
}

function unescapeRows<R extends { rows?: Record<string, unknown>[] }>(result: R): R {
  for (const row of result.rows ?? []) {
    for (const key in row) {
      const v = row[key];
      if (typeof v === 'string' && v.includes(ESC)) row[key] = unescapeNul(v);
    }
  }
  return result;
}

export class PreparingClient extends pg.Client {
  /** Statements this connection must no longer run by name (their result type changed). */
  readonly #unnamed = new Set<string>();

  // pg's other overloads (callbacks, config objects, submittables) pass through untouched; its
  // overloads can only be overridden as one untyped signature.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query(...args: any[]): any {
    // eslint-disable-next-line @typescript-eslint/no-unsafe-assignment
    const [text, rawValues] = args;
    if (args.length !== 2 || typeof text !== 'string' || !Array.isArray(rawValues)) {
      // eslint-disable-next-line @typescript-eslint/no-unsafe-argument
      return (super.query as (...a: unknown[]) => unknown)(...args);
    }
    const values = escapeValues(rawValues);
    if (text.length > MAX_PREPARED_TEXT || !PREPARABLE.test(text)) return super.query(text, values).then(unescapeRows);
    const name = nameOf(text);
    if (this.#unnamed.has(name)) return super.query(text, values).then(unescapeRows);
    return super.query({ name, text, values }).then(unescapeRows, (error: unknown) => {
      // A migration by another instance changed a table behind a `select *`: PostgreSQL refuses
      // the old plan ("cached plan must not change result type"); run it unnamed from now on.
      if ((error as { code?: string }).code !== '0A000') throw error;
      this.#unnamed.add(name);
      return super.query(text, values).then(unescapeRows);
    });
  }
}
