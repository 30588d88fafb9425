import { createHash } from 'node:crypto';

/** Identity of a card's content: equal content, equal hash (content is serialised canonically). */
export function contentHash(data: string): string {
  return createHash('sha256').update(data).digest('base64url').slice(0, 32);
}
