// Where stored media lives: `/media/<sha256 hex>.<ext>`, root-relative, so any imageUrl or
// markdown image may use it and every instance serves it.
import { createHash } from 'node:crypto';
import { IMAGE_TYPES, type ImageContentType } from './image-probe.ts';

export const MEDIA_PATH_PREFIX = '/media/';

export function contentHash(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function mediaUrl(hash: string, contentType: ImageContentType): string {
  return `${MEDIA_PATH_PREFIX}${hash}.${IMAGE_TYPES[contentType]}`;
}

export function mediaId(hash: string): string {
  return `med_${hash}`;
}

const FILE_NAME = /^([0-9a-f]{64})\.(?:png|jpg|gif|webp)$/;

/** The hash a `/media/` file name names, or null when it is not one of ours. */
export function hashOfMediaFile(name: string): string | null {
  return FILE_NAME.exec(name)?.[1] ?? null;
}

/** Every media hash a text refers to (an imageUrl, a markdown image, an absolute URL of ours). */
export function mediaHashesIn(text: string, into: Set<string> = new Set()): Set<string> {
  for (const match of text.matchAll(/\/media\/([0-9a-f]{64})\.(?:png|jpg|gif|webp)/g)) into.add(match[1]);
  return into;
}
