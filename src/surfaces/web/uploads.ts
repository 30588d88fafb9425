// File uploads from the pages (multipart/form-data): a deck file on /decks/import, an image in the
// editor. Registered in the web scope with limits that refuse any file and keep fields form-sized,
// so a multipart body sent to any other page is refused before it is read far (413); a route that
// takes a file raises the limits for itself (`uploadRoute`). The body then looks like a
// urlencoded form's: every field a string (so the CSRF check reads `_csrf` as usual), every file an
// `UploadedFile`. Files are read into memory, as the API reads its request bodies, within the
// same byte limits.
import multipart, { type MultipartFile, type MultipartValue } from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.ts';

export interface UploadedFile {
  readonly fileName: string;
  readonly mimeType: string;
  readonly data: Buffer;
}

type Part = (MultipartFile | MultipartValue) & { value?: unknown; valueTruncated?: boolean };

export async function registerUploads(scope: FastifyInstance, fieldSize: number): Promise<void> {
  await scope.register(multipart, {
    attachFieldsToBody: true,
    limits: { files: 0, fields: 40, parts: 40, fieldSize, fileSize: 0 },
    async onFile(part) {
      const file: UploadedFile = { fileName: part.filename, mimeType: part.mimetype, data: await part.toBuffer() };
      (part as unknown as { value: UploadedFile }).value = file;
    },
  });
  // After the multipart plugin's own preValidation hook (hooks run in the order they were added).
  scope.addHook('preValidation', async (request: FastifyRequest) => {
    if (!request.isMultipart() || request.body === null || typeof request.body !== 'object') return;
    const flat: Record<string, unknown> = {};
    for (const [name, part] of Object.entries(request.body as Record<string, Part | Part[]>)) {
      if (Array.isArray(part)) throw new AppError('BAD_REQUEST', `The form field ${name} must be sent once`, { field: name });
      if (part.valueTruncated === true) throw new AppError('PAYLOAD_TOO_LARGE', `The form field ${name} is longer than this server accepts`);
      flat[name] = part.value;
    }
    request.body = flat;
  });
}

/** Route options of a form that takes files: at most `files` of them, each at most `fileSize` bytes. */
export function uploadLimits(limits: { files: number; fileSize: number; fieldSize?: number }) {
  return { multipartOptions: { limits } };
}

/** The file sent in `name`, or null when the person chose none (a browser sends an empty part). */
export function uploadedFile(body: unknown, name: string): UploadedFile | null {
  if (body === null || typeof body !== 'object') return null;
  const value = (body as Record<string, unknown>)[name];
  if (value === null || typeof value !== 'object' || !('data' in value)) return null;
  const file = value as UploadedFile;
  return file.data.length === 0 && file.fileName === '' ? null : file;
}
