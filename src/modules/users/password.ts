// Passwords: scrypt from node:crypto (memory-hard, maintained with Node), never hand-rolled.
// Parameters are OWASP's scrypt equivalent N=2^15, r=8, p=3 (32 MiB per hash); they are stored
// with each hash, so raising them later still verifies older hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../../errors.ts';

/** DECISIONS: at least 10 characters, at most 200, no composition rules. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const N = 2 ** 15;
const R = 8;
const P = 3;
const KEY_BYTES = 32;
// 128 * N * r bytes are needed; Node's default ceiling (32 MiB) is exactly that, so allow headroom.
const MAX_MEMORY = 64 * 1024 * 1024;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...options, maxmem: MAX_MEMORY }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

/** Refuses a password outside the length rule (in code points, so emoji count as one). */
export function checkPasswordRule(password: string, field = 'password'): void {
  // Code points, not UTF-16 units (an emoji counts as one, as a person would count it).
  let length = 0;
  for (const _ of password) length++;
  if (length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new AppError('INVALID_INPUT', `The password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`, { field });
  }
}

/** `scrypt$N$r$p$salt$key`, salt and key base64url. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, { N, r: R, p: P });
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
}

const HASH = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([\w-]{1,64})\$([\w-]{1,128})$/;

/** Whether `password` matches `stored`, compared in constant time. A malformed hash matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const match = HASH.exec(stored);
  if (match === null) return false;
  const [, n, r, p, salt, key] = match;
  const expected = Buffer.from(key, 'base64url');
  // Longer than the length rule allows: never derived (a 200-character password is at most 800 bytes).
  if (password.length > PASSWORD_MAX * 2) return false;
  const actual = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

let decoy: Promise<string> | null = null;

/**
 * A hash of nothing anyone knows: checked against when the email is unknown (or has no password),
 * so a failed sign-in takes about the same time either way.
 */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(24).toString('base64url'));
  return decoy;
}
