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
