// GET /decks continuation tokens: an opaque, signed keyset position (updatedAt, id).
import { createHmac } from 'node:crypto';
import { AppError } from '../../errors.ts';
import { hashesEqual } from '../tokens/token-format.ts';

export interface DeckCursor {
  updatedAt: string;
  id: string;
}

function sign(key: string, payload: string): string {
  return createHmac('sha256', key).update(payload).digest('base64url').slice(0, 22);
}

export function encodeDeckCursor(key: string, cursor: DeckCursor): string {
  const payload = Buffer.from(JSON.stringify([cursor.updatedAt, cursor.id])).toString('base64url');
  return `${payload}.${sign(key, payload)}`;
}

export function decodeDeckCursor(key: string, token: string): DeckCursor {
  const invalid = () => new AppError('BAD_REQUEST', 'query parameter token is not a continuation token from this service', { field: 'token' });
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0 || !hashesEqual(sign(key, payload), signature)) throw invalid();
  try {
    const [updatedAt, id] = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    if (typeof updatedAt !== 'string' || typeof id !== 'string') throw invalid();
    return { updatedAt, id };
  } catch {
    throw invalid();
  }
}
