// What an uploaded image is, read from its bytes (never from what the client says it is) and its
// dimensions from its header, without decoding a pixel: a 50-megapixel PNG costs nothing to refuse.
import { imageSize } from 'image-size';
import { AppError } from '../../errors.ts';

export const IMAGE_TYPES = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
} as const;

export type ImageContentType = keyof typeof IMAGE_TYPES;
export type ImageExtension = (typeof IMAGE_TYPES)[ImageContentType];

/** Bytes of one image, at most. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Pixels along either side, at most. */
export const MAX_IMAGE_SIDE = 16_384;
/** Pixels in all, at most (a phone's 40 MP photo fits; a decompression bomb does not). */
export const MAX_IMAGE_PIXELS = 40_000_000;

export interface ImageFacts {
  readonly contentType: ImageContentType;
  readonly extension: ImageExtension;
  readonly width: number;
  readonly height: number;
}

function startsWith(bytes: Uint8Array, signature: readonly number[], at = 0): boolean {
  if (bytes.length < at + signature.length) return false;
  return signature.every((b, i) => bytes[at + i] === b);
}

const ascii = (text: string): number[] => Array.from(Buffer.from(text, 'latin1'));
const PNG = [0x89, ...ascii('PNG\r\n'), 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = ascii('GIF87a');
const GIF89 = ascii('GIF89a');
const RIFF = ascii('RIFF');
const WEBP = ascii('WEBP');

/** The type the bytes' signature names, among the four accepted; null for anything else. */
export function sniffImageType(bytes: Uint8Array): ImageContentType | null {
  if (startsWith(bytes, PNG)) return 'image/png';
  if (startsWith(bytes, JPEG)) return 'image/jpeg';
  if (startsWith(bytes, GIF87) || startsWith(bytes, GIF89)) return 'image/gif';
  if (startsWith(bytes, RIFF) && startsWith(bytes, WEBP, 8)) return 'image/webp';
  return null;
}

/** Whether the bytes look like SVG (XML text whose first kilobyte opens an `<svg` element). */
export function looksLikeSvg(bytes: Uint8Array): boolean {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 1024)).toString('latin1').replace(/^\uFEFF|^\xEF\xBB\xBF/, '').trimStart();
  return head.startsWith('<') && head.toLowerCase().includes('<svg');
}

/**
 * The image's type and size. Refuses SVG (IMAGE_SVG_REFUSED), anything but PNG, JPEG, GIF and
 * WebP (IMAGE_TYPE_UNSUPPORTED), bytes of another type than `declared` says when it names one of
 * the four (IMAGE_TYPE_MISMATCH), a header that cannot be read (IMAGE_UNREADABLE), and more than
 * MAX_IMAGE_SIDE or MAX_IMAGE_PIXELS (IMAGE_DIMENSIONS_TOO_LARGE).
 */
export function probeImage(bytes: Uint8Array, declared: string | null = null): ImageFacts {
  const sniffed = sniffImageType(bytes);
  if (declared === 'image/svg+xml' || (sniffed === null && looksLikeSvg(bytes))) {
    throw new AppError('IMAGE_SVG_REFUSED', 'SVG images are not accepted: they can carry script. Upload a PNG, JPEG, GIF or WebP image');
  }
  if (sniffed === null) {
    throw new AppError('IMAGE_TYPE_UNSUPPORTED', 'The bytes are not a PNG, JPEG, GIF or WebP image');
  }
  if (declared !== null && Object.hasOwn(IMAGE_TYPES, declared) && declared !== sniffed) {
    throw new AppError('IMAGE_TYPE_MISMATCH', `The Content-Type says ${declared} but the bytes are ${sniffed}`, { declared, detected: sniffed });
  }
  let size: { width?: number; height?: number };
  try {
    // A copy in memory of its own: image-size reads through the buffer's ArrayBuffer, and a slice
    // of a larger one (a pooled or sub-array buffer) would let a truncated header be read past its end.
    size = imageSize(Uint8Array.from(bytes));
  } catch {
    throw new AppError('IMAGE_UNREADABLE', `The ${sniffed} header cannot be read: the image is truncated or corrupt`);
  }
  const { width, height } = size;
  if (width === undefined || height === undefined || !(width > 0) || !(height > 0)) {
    throw new AppError('IMAGE_UNREADABLE', `The ${sniffed} header gives no dimensions: the image is truncated or corrupt`);
  }
  if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE || width * height > MAX_IMAGE_PIXELS) {
    throw new AppError('IMAGE_DIMENSIONS_TOO_LARGE', `The image is ${width} x ${height} pixels; at most ${MAX_IMAGE_SIDE} a side and ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are accepted`, { width, height });
  }
  return { contentType: sniffed, extension: IMAGE_TYPES[sniffed], width, height };
}
