// GET /media/<sha256>.<ext>: stored images, served by every instance from the database, with the
// headers of untrusted content (nosniff, a sandboxing CSP) and long immutable caching (the address
// is the content's hash, so it never changes). A scope of its own: no session, CSRF or policy hook
// runs for an image, and the held bytes go out without a database read.
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import type { ServiceContext } from '../../context.ts';
import { ByteBoundedLru } from '../../lru.ts';
import { readMediaFile, type MediaBlob } from '../../modules/media/media.service.ts';
import { ifNoneMatchHolds } from '../http.ts';
import { jsonErrorHandler, jsonNotFound } from '../errors.ts';
import { ROOT_PLUGIN } from '../root.ts';

export const MEDIA_PREFIX = '/media';

export interface MediaSurfaceOptions {
  ctx: ServiceContext;
  /** Bytes of images held in memory (default 64 MiB). */
  cacheBytes?: number;
}

/** What every media response carries, whatever the image. */
const MEDIA_HEADERS = Object.freeze({
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
  // Opened on its own, an image can run nothing and load nothing.
  'content-security-policy': "default-src 'none'; sandbox",
  // Cards embed these from any page (API clients show them on their own origins).
  'cross-origin-resource-policy': 'cross-origin',
});

/**
 * How long an instance serves held bytes before asking the database again: an image the purge
 * removed stops being served everywhere within this time.
 */
const HOLD_MS = 5 * 60_000;

interface HeldMedia {
  readonly data: Buffer;
  readonly until: number;
  readonly etag: string;
  readonly headers: Readonly<Record<string, string>>;
}

function held(blob: MediaBlob): HeldMedia {
  const etag = `"${blob.hash}"`;
  return { data: blob.data, until: performance.now() + HOLD_MS, etag, headers: { ...MEDIA_HEADERS, 'content-type': blob.contentType, etag } };
}

function send(reply: FastifyReply, media: HeldMedia, ifNoneMatch: string | undefined): FastifyReply {
  reply.headers(media.headers);
  if (ifNoneMatch !== undefined && ifNoneMatchHolds(ifNoneMatch, media.etag.slice(1, -1))) return reply.code(304).send();
  return reply.send(media.data);
}

export const mediaSurface = fp<MediaSurfaceOptions>(async (scope, { ctx, cacheBytes = 64 * 1024 * 1024 }) => {
  const cache = new ByteBoundedLru<HeldMedia>(cacheBytes, (m) => m.data.length + 512);
  scope.setErrorHandler(jsonErrorHandler);
  scope.setNotFoundHandler(jsonNotFound);
  scope.get<{ Params: { file: string } }>('/:file', (request, reply) => {
    const { file } = request.params;
    const hit = cache.get(file);
    if (hit !== undefined && hit.until > performance.now()) {
      send(reply, hit, request.headers['if-none-match']);
      return undefined;
    }
    return readMediaFile(ctx, file).then((blob) => {
      const media = held(blob);
      cache.set(file, media);
      return send(reply, media, request.headers['if-none-match']);
    });
  });
}, { name: 'flashdeck-media', dependencies: [ROOT_PLUGIN], encapsulate: true, fastify: '5.x' });
