import { Type } from 'typebox';
import { principalOf, type RouteModule } from '../../http.ts';
import { AUTH_ERRORS, BODY_ERRORS, errorResponses } from '../route-schemas.ts';
import { MAX_IMAGE_BYTES } from '../../../modules/media/image-probe.ts';
import { StoredMediaSchema } from '../../../modules/media/media.schemas.ts';
import { uploadMedia } from '../../../modules/media/media.service.ts';
import { mediaType } from '../content-types.ts';

/** What POST /media takes: the four image types, SVG (to refuse it by name), and plain bytes. */
export const MEDIA_UPLOAD_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/svg+xml', 'application/octet-stream'] as const;

const ImageBytes = Type.Unsafe<Buffer>({ type: 'string', format: 'binary', description: 'The image file, at most 5 MiB' });

export const mediaRoutes: RouteModule = (app, { ctx }) => {
  app.post('/media', {
    config: { auth: { scope: 'decks:write' }, accepts: MEDIA_UPLOAD_TYPES },
    bodyLimit: MAX_IMAGE_BYTES,
    schema: {
      operationId: 'uploadMedia',
      tags: ['media'],
      summary: 'Upload an image; its root-relative URL comes back (extension)',
      description: [
        'The body is one PNG, JPEG, GIF or WebP image, at most 5 MiB. Its type is read from its bytes: a Content-Type of one of the four that does not match them is 400 IMAGE_TYPE_MISMATCH; `application/octet-stream` takes whichever they are. SVG is refused (415 IMAGE_SVG_REFUSED), as is anything else (415 IMAGE_TYPE_UNSUPPORTED).',
        'Dimensions are read from the header, never by decoding: more than 16,384 pixels a side or 40 megapixels is 413 IMAGE_DIMENSIONS_TOO_LARGE.',
        "The image is stored once per content hash and counted against the user's media quota (default 200 MiB; 403 MEDIA_QUOTA_EXCEEDED). `url` (`/media/<sha256>.<ext>`) may be used as any `imageUrl` or markdown image; it is served by every instance with long immutable caching. Media that no deck refers to is removed after a grace period (default 24 hours).",
      ].join('\n\n'),
      body: { content: Object.fromEntries(MEDIA_UPLOAD_TYPES.map((t) => [t, { schema: ImageBytes }])) },
      response: {
        201: StoredMediaSchema,
        ...errorResponses([
          ...AUTH_ERRORS, ...BODY_ERRORS, 'FORBIDDEN', 'IMAGE_TYPE_MISMATCH', 'IMAGE_UNREADABLE', 'IMAGE_SVG_REFUSED',
          'IMAGE_TYPE_UNSUPPORTED', 'IMAGE_DIMENSIONS_TOO_LARGE', 'MEDIA_QUOTA_EXCEEDED',
        ]),
      },
    },
  }, async (request, reply) => {
    const declared = mediaType(request.headers['content-type']);
    const media = await uploadMedia(ctx, principalOf(request), {
      data: request.body as Buffer,
      declaredType: declared === 'application/octet-stream' ? null : declared,
    });
    return reply.code(201).send(media);
  });
};
