// The API's bodies: JSON everywhere; deck markdown and CSV text, images and Anki packages (bytes)
// where a route accepts them (`config.accepts`).
// Registered inside the API's scope only: a form post to another surface never meets them.
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../../errors.ts';
import { assertBody } from '../../validation.ts';
import { addRouteHook, type Api } from '../http.ts';
import { readBinaryBody } from './binary-body.ts';
import { parseJsonText } from '../json-text.ts';

const DEFAULT_ACCEPTS = ['application/json'] as const;

// Fatal: bytes that are not UTF-8 are refused, not turned into U+FFFD and stored as if sent.
// A leading byte-order mark is kept, as before (JSON refuses it; markdown treats it as text).
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The body as text, or a 400 when it is not UTF-8 (both formats are UTF-8 by definition). */
function utf8Text(body: Buffer): string {
  try {
    return UTF8.decode(body);
  } catch {
    throw new AppError('BAD_REQUEST', 'The request body is not valid UTF-8');
  }
}

/** Bodies read as UTF-8 text. */
const TEXT_TYPES = ['text/markdown', 'text/csv'] as const;

/** Bodies kept as bytes: images (POST /media) and Anki packages (POST /decks/import/apkg). */
export const BINARY_TYPES = [
  'image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml',
  'application/octet-stream', 'application/zip', 'application/apkg',
];

export function mediaType(header: string | undefined): string | null {
  if (!header) return null;
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/**
 * Bodies of any type but JSON and markdown, or of a type the route does not take, are 415
 * UNSUPPORTED_MEDIA_TYPE.
 */
export function registerApiContentTypes(app: Api): void {
  app.removeAllContentTypeParsers();
  // An empty JSON body is no body: routes without one (complete a review) accept it, routes
  // that need one answer BAD_REQUEST below. Keys that poison prototypes are refused, with a
  // message that says so (the markdown parser refuses the same keys).
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    let text: string;
    try {
      text = utf8Text(body as Buffer);
    } catch (error) {
      done(error as AppError, undefined);
      return;
    }
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, parseJsonText(text));
    } catch (error) {
      done(error as AppError, undefined);
    }
  });
  for (const type of TEXT_TYPES) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => {
      try {
        done(null, utf8Text(body as Buffer));
      } catch (error) {
        done(error as AppError, undefined);
      }
    });
  }
  // Bytes, as sent: the route reads what they are (an image's type from its signature). Read into
  // one buffer (binary-body.ts says why not Fastify's `parseAs: 'buffer'`).
  app.addContentTypeParser(BINARY_TYPES, (request, payload, done) => {
    readBinaryBody(request, payload).then((body) => { done(null, body); }, (error: unknown) => { done(error as Error, undefined); });
  });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.some((m) => m === 'POST' || m === 'PATCH' || m === 'PUT')) return;
    const required = route.schema?.body !== undefined;
    const accepts = (route.config)?.accepts ?? DEFAULT_ACCEPTS;
    const takesNone = !required && route.config?.accepts === undefined;
    addRouteHook(route as never, 'preValidation', (request: FastifyRequest) => checkBody(request, required, accepts, takesNone));
  });
}

/**
 * The body of a POST that takes none (complete a review, restore, copy), as the OpenAPI document
 * says it: absent or `{}`. Any field is refused as on every other route (SCHEMA_INVALID, "x is not
 * an allowed property"), not ignored: a client that sends one expects it to mean something.
 */
const NoFields = Type.Object({}, { additionalProperties: false });

/** A body must be there where the route needs one, and be of a media type the route accepts. */
async function checkBody(request: FastifyRequest, required: boolean, accepts: readonly string[], takesNone: boolean): Promise<void> {
  const { body } = request;
  // JSON `null` is a body that parses (then fails the route's schema: SCHEMA_INVALID), not an empty one.
  const empty = body === undefined || body === '' || (Buffer.isBuffer(body) && body.length === 0);
  if (empty) {
    if (required) throw new AppError('BAD_REQUEST', 'The request body is empty');
    return;
  }
  const type = mediaType(request.headers['content-type']);
  if (type === null) return;
  if (!accepts.includes(type)) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${type} is not accepted here; use ${accepts.join(' or ')}`);
  }
  if (takesNone) assertBody(NoFields, body);
}
