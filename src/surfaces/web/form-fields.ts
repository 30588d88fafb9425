// Reading a page's query and form body: the one place the pages turn them into strings.
import { AppError } from '../../errors.ts';

export type Query = Record<string, string | string[] | undefined>;

/** A query parameter given once, else undefined (a repeated one is not guessed at). */
export function one(query: Query, name: string): string | undefined {
  const value = query[name];
  return typeof value === 'string' ? value : undefined;
}

/** A file part of a multipart body (@fastify/multipart's attachFieldsToBody). */
export function isUpload(value: unknown): boolean {
  return value !== null && typeof value === 'object' && Buffer.isBuffer((value as { data?: unknown }).data);
}

/** A form body as fields: every value a string (uploaded files are read apart); a repeated field is refused. */
export function formOf(body: unknown): Partial<Record<string, string>> {
  if (body === null || typeof body !== 'object') return {};
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') out[key] = value;
    else if (!isUpload(value)) throw new AppError('BAD_REQUEST', `The form field ${key} must be sent once`, { field: key });
  }
  return out;
}
