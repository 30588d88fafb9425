// Continuation tokens of keyset pages (GET /decks, a token's activity log): the last row's sort
// key, opaque and signed, so a tampered or foreign token is refused with 400 BAD_REQUEST.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from './errors.ts';

function sign(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url').slice(0, 22);
}

export function encodeCursor(key: string, values: readonly (string | number)[]): string {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

/** The values of a token made by encodeCursor with the same key, or 400 BAD_REQUEST naming `field`. */
export function decodeCursor(key: string, token: string, field: string): unknown[] {
  const invalid = () => new AppError('BAD_REQUEST', `query parameter ${field} is not a continuation token from this service`, { field });
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) throw invalid();
  const expected = Buffer.from(sign(key, payload));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid();
  try {
    const values: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(values)) throw invalid();
    return values;
  } catch {
    throw invalid();
  }
}

/**
 * The sort key carried by a continuation token of the list named `list` (null without a token).
 * The list's name is signed into the token, so a token of another list (another token's log, the
 * same log under another filter, another person's tokens) is refused with 400 BAD_REQUEST rather
 * than read as a position in this one. `types`: the type of each value of the sort key.
 */
export function continuationOf(key: string, token: string | undefined, list: string, types: readonly ('string' | 'number')[]): unknown[] | null {
  if (token === undefined || token === '') return null;
  const values = decodeCursor(key, token, 'token');
  if (values.length !== types.length + 1 || values.at(-1) !== list || types.some((type, i) => typeof values[i] !== type)) {
    throw new AppError('BAD_REQUEST', 'query parameter token is not a continuation token of this list', { field: 'token' });
  }
  return values.slice(0, -1);
}

/**
 * A keyset page: the first `limit` of `rows` (read with limit + 1, the one more telling whether
 * there is a next page) and the continuation token of `list` after its last row.
 */
export function keysetPage<R>(
  key: string, rows: readonly R[], limit: number, list: string, sortKeyOf: (row: R) => readonly (string | number)[],
): { rows: R[]; nextToken: string | null } {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextToken: rows.length > limit && last !== undefined ? encodeCursor(key, [...sortKeyOf(last), list]) : null };
}
