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

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const b = randomByte();
    if (b < 248) out += BASE62[b % 62];
  }
  return out;
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
