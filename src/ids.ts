import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const bytes = randomBytes(length * 2);
    for (let i = 0; i < bytes.length && out.length < length; i++) {
      const b = bytes[i];
      if (b < 248) out += BASE62[b % 62];
    }
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
