import { randomFillSync } from 'node:crypto';

// Random bytes are drawn from the OS in blocks and each byte is used once: one randomBytes call per
// id cost about 8 µs, 2 ms of a 250-card import (docs/performance.md).
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

function randomByte(): number {
  if (poolAt === POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  return POOL[poolAt++];
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BASE62_CODES = Buffer.from(BASE62, 'latin1');
// The characters are written here and read out as one string: adding them to a string one at a
// time made a string per character (150 KB of garbage per 250-card import, docs/performance.md).
let chars = Buffer.alloc(64);

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  if (chars.length < length) chars = Buffer.alloc(length);
  let n = 0;
  while (n < length) {
    const b = randomByte();
    if (b < 248) chars[n++] = BASE62_CODES[b % 62];
  }
  return chars.toString('latin1', 0, length);
}

export function toBase62(value: number, width: number): string {
  let out = '';
  let n = value;
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(width, '0');
}

export type IdPrefix = 'usr' | 'tok' | 'dck' | 'crd' | 'rev';

/** Opaque, random, URL-safe id with a readable prefix: `dck_3kT9...`. 20 base62 chars ~ 119 bits. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}
