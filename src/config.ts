// The only reader of process.env. Every value is validated here; a bad one stops start-up
// with one line naming the variable.
import path from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly publicUrl: string;
  readonly dataDir: string;
  readonly databaseUrl: string | null;
  readonly redisUrl: string | null;
  readonly rateLimitPerMinute: number;
  readonly rateLimitPerDay: number;
  readonly deckLimit: number | null;
  readonly bodyLimitBytes: number;
  readonly failedAuthPerMinute: number;
  readonly tokenHashKey: string | null;
  readonly logLevel: string;
  readonly trustProxy: boolean;
  /** SIGNUP: `open` (default) or `closed` (only `flashdeck users add` makes users). */
  readonly signup: 'open' | 'closed';
  /** Failed sign-ins per account per minute before that account's sign-in is throttled. */
  readonly signInAttemptsPerMinute: number;
  /** OAuth dynamic client registrations per client address (DECISIONS: throttled). */
  readonly oauthRegistrationsPerMinute: number;
  readonly oauthRegistrationsPerDay: number;
  /** Sign-ups per client address per hour (made, or refused as taken). */
  readonly signUpAttemptsPerHour: number;
  /**
   * Password hashes run at once, how many more may wait (beyond: 503 with Retry-After), and
   * PASSWORD_HASH_COST, log2 of scrypt's N for new hashes (15, OWASP's, unless a test lowers it).
   */
  readonly hashing: { readonly concurrency: number; readonly queue: number; readonly cost: number };
  /** Connection timeouts (docs/deployment.md): all in milliseconds. */
  readonly timeouts: Timeouts;
  /** MCP_ALLOWED_ORIGINS: browser origins besides PUBLIC_URL's that may call /mcp (DECISIONS "MCP"). */
  readonly mcpAllowedOrigins: readonly string[];
  /** Images per user (POST /media, Anki packages), in bytes: MEDIA_QUOTA_BYTES, default 200 MiB. */
  readonly mediaQuotaBytes: number;
  /** Media no deck refers to is removed after this many hours: MEDIA_GRACE_HOURS, default 24. */
  readonly mediaGraceHours: number;
  /** Largest Anki package POST /decks/import/apkg takes, in bytes: APKG_LIMIT_BYTES, default 128 MiB. */
  readonly apkgLimitBytes: number;
  /** How long reading an Anki package may take, in milliseconds: APKG_TIME_LIMIT_MS, default 60 s. */
  readonly apkgTimeLimitMs: number;
}

export interface Timeouts {
  /** Time to receive a request's complete headers (slow-headers attacks). */
  readonly headersMs: number;
  /** Time to receive a whole request, body included (slow-body attacks). */
  readonly requestMs: number;
  /** A connection with no byte in either direction for this long is closed. */
  readonly idleMs: number;
  /** An idle keep-alive connection is kept this long: longer than a proxy's, so the proxy closes first. */
  readonly keepAliveMs: number;
  /** After an error answered before the body was read, the rest is read and dropped for at most this long. */
  readonly lingerMs: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, fallback: string | null, protocols: string[]): string | null {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/** A comma-separated list of origins (`https://app.example.com`), each normalised as URL.origin. */
function origins(env: Env, name: string): string[] {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return [];
  return raw.split(',').map((item) => item.trim()).filter((item) => item !== '').map((item) => {
    let parsed: URL;
    try {
      parsed = new URL(item);
    } catch {
      throw new ConfigError(`${name} must be comma-separated origins like https://app.example.com, got "${item}"`);
    }
    if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.origin !== item.replace(/\/$/, '')) {
      throw new ConfigError(`${name} must be comma-separated origins like https://app.example.com (scheme, host and port only), got "${item}"`);
    }
    return parsed.origin;
  });
}

function oneOf(env: Env, name: string, fallback: string, allowed: string[]): string {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST && env.HOST.trim() !== '' ? env.HOST.trim() : '127.0.0.1';
  const publicUrl = (url(env, 'PUBLIC_URL', `http://localhost:${port}`, ['http:', 'https:']) as string).replace(/\/+$/, '');
  const dataDir = path.resolve(env.DATA_DIR && env.DATA_DIR !== '' ? env.DATA_DIR : './data');
  const databaseUrl = url(env, 'DATABASE_URL', null, ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', null, ['redis:', 'rediss:']);
  const rateLimitPerMinute = integer(env, 'RATE_LIMIT_PER_MINUTE', 60, 1, 1_000_000_000);
  const rateLimitPerDay = integer(env, 'RATE_LIMIT_PER_DAY', 2000, 1, 1_000_000_000);
  let deckLimit: number | null = 100;
  if (env.DECK_LIMIT !== undefined && env.DECK_LIMIT !== '') {
    const raw = env.DECK_LIMIT.trim();
    if (raw.toLowerCase() === 'none') deckLimit = null;
    else if (!/^\d+$/.test(raw)) throw new ConfigError(`DECK_LIMIT must be a whole number of decks per user or "none" (no limit), got "${env.DECK_LIMIT}"`);
    else deckLimit = integer(env, 'DECK_LIMIT', 100, 0, 1_000_000_000);
  }
  const bodyLimitBytes = integer(env, 'BODY_LIMIT_BYTES', 16 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  const failedAuthPerMinute = integer(env, 'FAILED_AUTH_PER_MINUTE', 20, 1, 1_000_000);
  const tokenHashKey = env.TOKEN_HASH_KEY && env.TOKEN_HASH_KEY !== '' ? env.TOKEN_HASH_KEY : null;
  if (tokenHashKey !== null && tokenHashKey.length < 32) {
    throw new ConfigError('TOKEN_HASH_KEY must be at least 32 characters');
  }
  const logLevel = oneOf(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);
  const trustProxy = oneOf(env, 'TRUST_PROXY', 'false', ['true', 'false']) === 'true';
  const headersMs = integer(env, 'HEADERS_TIMEOUT_MS', 30_000, 100, 600_000);
  const requestMs = integer(env, 'REQUEST_TIMEOUT_MS', 120_000, 100, 3_600_000);
  if (requestMs < headersMs) throw new ConfigError(`REQUEST_TIMEOUT_MS (${requestMs}) must be at least HEADERS_TIMEOUT_MS (${headersMs})`);
  const timeouts: Timeouts = Object.freeze({
    headersMs,
    requestMs,
    idleMs: integer(env, 'IDLE_TIMEOUT_MS', 60_000, 100, 3_600_000),
    keepAliveMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
    lingerMs: integer(env, 'LINGER_TIMEOUT_MS', 30_000, 0, 600_000),
  });
  const signup = oneOf(env, 'SIGNUP', 'open', ['open', 'closed']) as Config['signup'];
  const signInAttemptsPerMinute = integer(env, 'SIGNIN_ATTEMPTS_PER_MINUTE', 10, 1, 1_000_000);
  const oauthRegistrationsPerMinute = integer(env, 'OAUTH_REGISTRATIONS_PER_MINUTE', 10, 1, 1_000_000);
  const oauthRegistrationsPerDay = integer(env, 'OAUTH_REGISTRATIONS_PER_DAY', 50, 1, 1_000_000_000);
  const mcpAllowedOrigins = Object.freeze(origins(env, 'MCP_ALLOWED_ORIGINS'));
  const signUpAttemptsPerHour = integer(env, 'SIGNUP_ATTEMPTS_PER_HOUR', 20, 1, 1_000_000);
  const hashing = Object.freeze({
    concurrency: integer(env, 'PASSWORD_HASH_CONCURRENCY', 2, 1, 64),
    queue: integer(env, 'PASSWORD_HASH_QUEUE', 16, 0, 10_000),
    // Only lower than OWASP's 15: the test suite sets 10 where the hash itself is not under test.
    cost: integer(env, 'PASSWORD_HASH_COST', 15, 10, 15),
  });
  const mediaQuotaBytes = integer(env, 'MEDIA_QUOTA_BYTES', 200 * 1024 * 1024, 0, 1024 ** 4);
  const mediaGraceHours = integer(env, 'MEDIA_GRACE_HOURS', 24, 0, 24 * 365);
  const apkgLimitBytes = integer(env, 'APKG_LIMIT_BYTES', 128 * 1024 * 1024, 1024, 1024 * 1024 * 1024);
  const apkgTimeLimitMs = integer(env, 'APKG_TIME_LIMIT_MS', 60_000, 100, 3_600_000);
  return Object.freeze({
    mediaQuotaBytes, mediaGraceHours, apkgLimitBytes, apkgTimeLimitMs,
    port, host, publicUrl, dataDir, databaseUrl, redisUrl, rateLimitPerMinute, rateLimitPerDay,
    deckLimit, bodyLimitBytes, failedAuthPerMinute, tokenHashKey, logLevel, trustProxy, signup, signInAttemptsPerMinute,
    oauthRegistrationsPerMinute, oauthRegistrationsPerDay, signUpAttemptsPerHour, hashing, timeouts, mcpAllowedOrigins,
  });
}
