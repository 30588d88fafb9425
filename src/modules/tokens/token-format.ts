// Personal access tokens: svc_pat_<prefix>_<secret>, both base62. The secret is 30 random
// characters (~178 bits) and a 6-character CRC-32 checksum of everything before it, so a
// mistyped token is rejected without touching the store.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { randomBase62, toBase62 } from '../../ids.ts';

export const PAT_MARKER = 'svc_pat_';
export const PREFIX_LENGTH = 10;
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
/** Every well-formed PAT is this long. */
export const PAT_LENGTH = PAT_MARKER.length + PREFIX_LENGTH + 1 + RANDOM_LENGTH + CHECKSUM_LENGTH;
const PAT_PATTERN = new RegExp(`^${PAT_MARKER}([0-9A-Za-z]{${PREFIX_LENGTH}})_[0-9A-Za-z]{${RANDOM_LENGTH}}([0-9A-Za-z]{${CHECKSUM_LENGTH}})$`);

function checksum(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generatePat(): { token: string; prefix: string } {
  const prefix = randomBase62(PREFIX_LENGTH);
  const body = `${PAT_MARKER}${prefix}_${randomBase62(RANDOM_LENGTH)}`;
  return { token: body + checksum(body), prefix };
}

/** The prefix of a well-formed token whose checksum holds, else null. */
export function parsePat(token: string): string | null {
  const match = PAT_PATTERN.exec(token);
  if (!match) return null;
  const body = token.slice(0, token.length - CHECKSUM_LENGTH);
  return checksum(body) === match[2] ? match[1] : null;
}

export function hashToken(key: string, token: string): string {
  return createHmac('sha256', key).update(token).digest('base64url');
}

export function hashesEqual(a: string, b: string): boolean {
  return bytesEqual(Buffer.from(a), b);
}

/** Whether `text` is these bytes as UTF-8, compared in constant time. */
export function bytesEqual(bytes: Buffer, text: string): boolean {
  const other = Buffer.from(text);
  return bytes.length === other.length && timingSafeEqual(bytes, other);
}
