// Passwords: scrypt from node:crypto (memory-hard, maintained with Node), never hand-rolled.
// Parameters are OWASP's scrypt equivalent N=2^15, r=8, p=3 (32 MiB per hash); they are stored
// with each hash, so raising them later still verifies older hashes. PASSWORD_HASH_COST lowers N
// (the test suite's hashes, where the hash is not what a test checks).
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { AppError } from '../../errors.ts';

/** DECISIONS: at least 10 characters, at most 200, no composition rules. */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

const DEFAULT_COST = 15;
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

const HASH = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([\w-]{1,64})\$([\w-]{1,128})$/;

/** How many hashes run at once, and how many may wait for a turn (PASSWORD_HASH_*). */
export interface HashingLimits {
  /** Each running hash holds 32 MiB (128 * N * r bytes) until it ends. */
  readonly concurrency: number;
  /** One more waiting hash is refused at once with 503 SERVICE_UNAVAILABLE and Retry-After. */
  readonly queue: number;
  /** log2 of scrypt's N for new hashes (default 15); verifying reads N from the stored hash. */
  readonly cost?: number;
}

export const DEFAULT_HASHING: HashingLimits = Object.freeze({ concurrency: 2, queue: 16, cost: DEFAULT_COST });

/**
 * Hashes and checks passwords with bounded concurrency: at most `concurrency` scrypt runs at once
 * (so at most that many times 32 MiB, which scrypt maps and returns to the system when it ends),
 * up to `queue` more wait in order, and beyond that a request is refused at once rather than
 * queued without bound. One per app (the service context), so one process's hashes share it.
 */
export class PasswordHasher {
  readonly #limits: HashingLimits;
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  #computed = 0;
  /** Recent time of one hash, for Retry-After. */
  #averageMs = 500;
  #decoy: Promise<string> | null = null;

  constructor(limits: HashingLimits = DEFAULT_HASHING) {
    this.#limits = limits;
  }

  /** Hashes computed so far (each one scrypt run). */
  get computed(): number {
    return this.#computed;
  }

  /** `scrypt$N$r$p$salt$key`, salt and key base64url. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const N = 2 ** (this.#limits.cost ?? DEFAULT_COST);
    const key = await this.#derive(password, salt, { N, r: R, p: P });
    return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$');
  }

  /**
   * Whether `password` matches `stored`, compared in constant time, with the parameters stored
   * in it (older hashes still verify). A malformed hash matches nothing.
   */
  async verify(password: string, stored: string): Promise<boolean> {
    const match = HASH.exec(stored);
    if (match === null) return false;
    const [, n, r, p, salt, key] = match;
    const expected = Buffer.from(key, 'base64url');
    // Longer than the length rule allows: never derived (a 200-character password is at most 800 bytes).
    if (password.length > PASSWORD_MAX * 2) return false;
    const actual = await this.#derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /**
   * A hash of nothing anyone knows: checked against when the email is unknown (or has no
   * password), so a failed sign-in takes about the same time either way.
   */
  decoy(): Promise<string> {
    if (this.#decoy === null) {
      const made = this.hash(randomBytes(24).toString('base64url'));
      // A refused (busy) first try is not kept: the next caller tries again.
      made.catch(() => { if (this.#decoy === made) this.#decoy = null; });
      this.#decoy = made;
    }
    return this.#decoy;
  }

  async #derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
    await this.#turn();
    const started = performance.now();
    try {
      return await derive(password, salt, options);
    } finally {
      this.#computed++;
      this.#averageMs = 0.8 * this.#averageMs + 0.2 * (performance.now() - started);
      this.#leave();
    }
  }

  /** Resolves when this hash may run; throws SERVICE_UNAVAILABLE when the queue is full. */
  #turn(): Promise<void> {
    if (this.#running < this.#limits.concurrency) {
      this.#running++;
      return Promise.resolve();
    }
    if (this.#waiting.length >= this.#limits.queue) {
      const ahead = this.#running + this.#waiting.length;
      const seconds = Math.max(1, Math.ceil((ahead / this.#limits.concurrency) * this.#averageMs / 1000));
      throw new AppError('SERVICE_UNAVAILABLE', `Too many passwords are being checked at once; try again in ${seconds} seconds`, undefined, {
        'Retry-After': String(seconds),
      });
    }
    // The running count is handed over by #leave, not given back and taken again.
    return new Promise((resolve) => { this.#waiting.push(resolve); });
  }

  #leave(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#running--;
    else next();
  }
}
