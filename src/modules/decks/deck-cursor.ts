// GET /decks continuation tokens: an opaque, signed keyset position (updatedAt, id).
import { AppError } from '../../errors.ts';
import { decodeCursor, encodeCursor } from '../../keyset-cursor.ts';

export interface DeckCursor {
  updatedAt: string;
  id: string;
}

export function encodeDeckCursor(key: string, cursor: DeckCursor): string {
  return encodeCursor(key, [cursor.updatedAt, cursor.id]);
}

export function decodeDeckCursor(key: string, token: string): DeckCursor {
  const [updatedAt, id, ...rest] = decodeCursor(key, token, 'token');
  if (typeof updatedAt !== 'string' || typeof id !== 'string' || rest.length > 0) {
    throw new AppError('BAD_REQUEST', 'query parameter token is not a continuation token from this service', { field: 'token' });
  }
  return { updatedAt, id };
}
