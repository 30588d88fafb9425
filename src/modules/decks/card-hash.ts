import { hash } from 'node:crypto';

/** Identity of a card's content: equal content, equal hash (content is serialised canonically). */
export function contentHash(data: string): string {
  // The one-shot hash: a Hash object per card cost about twice as much.
  return hash('sha256', data, 'base64url').slice(0, 32);
}
