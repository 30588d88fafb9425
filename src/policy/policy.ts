// The per-call policy every surface applies, as plain functions: the API binds them to route-level
// hooks (src/surfaces/api/route-policy.ts), an MCP dispatcher calls them per tool call, the web
// editor charges its card-write bucket through `admit`. No rule of it is written anywhere else.
//
//   authenticate  bearer token -> Principal, through the first verifier that recognises it (401)
//   admit         failed-auth throttle and the bucket's windows (429), reading shared keys in the
//                 same round trip
//   requireScope  403 FORBIDDEN with the insufficient_scope hint
//   admitCall     admit in the token's bucket, then requireScope: a call after authentication, as
//                 the API's routes and MCP's tool calls make it
//   record        the activity log entry of a call made with a token
//   idempotent    (idempotency.ts) a write run at most once per key
//   signIn        a password sign-in's throttle, per account and per client address (the pages)
//   signUp        a sign-up's throttle, per client address (the pages)
import type { Clock } from '../clock.ts';
import type { BeforeCommit, ServiceContext } from '../context.ts';
import { AppError } from '../errors.ts';
import type { ActivityRecorder } from '../modules/activity/activity-recorder.ts';
import type { Actor, Principal } from '../modules/identity/principal.ts';
import type { Scope } from '../modules/identity/scopes.ts';
import { refusal, type TokenVerifier, type Verification } from '../modules/identity/verifier.ts';
import {
  FAILED_AUTH_SECONDS, type Admission, type AttemptCounter, type RateBucket, type RateDecision, type RateLimitStore, type WindowLimits,
} from '../stores/rate-limits/rate-limits.ts';
import { isPromise } from '../promise.ts';
import { runIdempotent, type IdempotentCall, type IdempotentOutcome, type StoredResponse } from './idempotency.ts';

/**
 * A protected resource (RFC 9728): its identifier, which OAuth tokens are bound to, and its
 * metadata document, which its 401 and 403 responses name (the API names
 * `/.well-known/oauth-protected-resource`; the MCP endpoint will name its own).
 */
export interface ProtectedResource {
  /** `{PUBLIC_URL}/api/v1`, `{PUBLIC_URL}/mcp`. */
  readonly resource: string;
  readonly metadataUrl: string;
  /** WWW-Authenticate when no token was presented. */
  readonly missingToken: string;
  /** WWW-Authenticate when a presented token was refused. */
  readonly invalidToken: string;
}

/**
 * `scopes`: what a client should ask for, named in the 401's `scope` (the MCP endpoint names the
 * default OAuth scopes, so an MCP client asks for them; RFC 6750 section 3).
 */
export function protectedResource(resource: string, metadataUrl: string, scopes: readonly string[] = []): ProtectedResource {
  const scope = scopes.length === 0 ? '' : `scope="${scopes.join(' ')}", `;
  return {
    resource,
    metadataUrl,
    missingToken: challenge(metadataUrl, scope),
    invalidToken: challenge(metadataUrl, `error="invalid_token", ${scope}`),
  };
}

function challenge(metadataUrl: string, extra: string): string {
  return `Bearer ${extra}resource_metadata="${metadataUrl}"`;
}

/** The outcome of an admitted call: its rate-limit headers and the values of the keys it read. */
export interface Admitted {
  readonly rateLimitPolicy: string;
  readonly rateLimit: string;
  readonly values: readonly (string | null)[];
}

/** A call that reads no shared key in its admission (`admit`'s `reads`). */
export const NO_READS: readonly string[] = Object.freeze([]);

/** One call made with a token, as the activity log keeps it. */
export interface CallRecord {
  readonly method: string;
  /** `/api/v1/decks/:deckId` for an API route, `mcp:get_deck` for a tool. */
  readonly route: string;
  readonly deckId: string | null;
  readonly status: number;
  readonly durationMs: number;
  readonly address: string | null;
  readonly userAgent: string | null;
  readonly requestId: string;
  /** The catalog code of a refused call (null or absent for a success). */
  readonly errorCode?: string | null;
}

export interface PolicyOptions {
  /** The services' context: its clock, and its store for idempotency records. */
  ctx: ServiceContext;
  verifiers: readonly TokenVerifier[];
  rateLimits: RateLimitStore;
  /** The windows of every token's (and OAuth grant's) bucket. */
  tokenLimits: WindowLimits;
  /** The windows of a signed-in user's card writes from the web editor. */
  cardWriteLimits: WindowLimits;
  activity: ActivityRecorder;
  /**
   * Password attempts from the pages, counted in `rateLimits` (shared by every instance): failed
   * sign-ins per account and per client address per minute, sign-ups per client address per hour.
   * Optional for suites that build a Policy without pages.
   */
  passwordAttempts?: PasswordAttemptLimits;
}

export interface PasswordAttemptLimits {
  /** SIGNIN_ATTEMPTS_PER_MINUTE. */
  readonly signInPerAccount: number;
  /** FAILED_AUTH_PER_MINUTE. */
  readonly signInPerAddress: number;
  /** SIGNUP_ATTEMPTS_PER_HOUR. */
  readonly signUpPerAddress: number;
}

/** DECISIONS: card writes from the web editor, per signed-in user. */
export const CARD_WRITE_LIMITS: WindowLimits = Object.freeze({ perMinute: 120, perDay: 5000 });

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

export class Policy {
  readonly #ctx: ServiceContext;
  readonly #clock: Clock;
  readonly #verifiers: readonly TokenVerifier[];
  readonly #rateLimits: RateLimitStore;
  readonly #tokenLimits: WindowLimits;
  readonly #cardWriteLimits: WindowLimits;
  readonly #activity: ActivityRecorder;
  readonly #policyHeaders = new WeakMap<WindowLimits, string>();
  readonly #passwordAttempts: PasswordAttemptLimits | null;

  constructor(options: PolicyOptions) {
    this.#ctx = options.ctx;
    this.#clock = options.ctx.clock;
    this.#verifiers = options.verifiers;
    this.#rateLimits = options.rateLimits;
    this.#tokenLimits = options.tokenLimits;
    this.#cardWriteLimits = options.cardWriteLimits;
    this.#activity = options.activity;
    this.#passwordAttempts = options.passwordAttempts ?? null;
  }

  /**
   * Runs a password sign-in under the throttle: 429 RATE_LIMITED (Retry-After) while the account
   * or the address has failed too often in the last minute, whatever the password. The attempt is
   * counted against both before `attempt` runs (one atomic step, so concurrent attempts cannot all
   * pass the check before any is counted, and a refused one never reaches the password hash); it
   * is taken back unless `attempt` failed with INVALID_CREDENTIALS, so a person who types the
   * right password is never charged for it.
   */
  async signIn<R>(email: string, address: string, attempt: () => Promise<R>): Promise<R> {
    const limits = this.#passwordAttempts;
    if (limits === null) return attempt();
    return this.#counted([
      { key: `signin-account:${email.trim().toLowerCase().slice(0, 254)}`, limit: limits.signInPerAccount, seconds: FAILED_AUTH_SECONDS },
      { key: `signin-address:${address}`, limit: limits.signInPerAddress, seconds: FAILED_AUTH_SECONDS },
    ], (wait) => `Too many failed sign-ins; try again in ${inWords(wait)}`, attempt, (error) => isCode(error, 'INVALID_CREDENTIALS'));
  }

  /**
   * Runs a sign-up under the per-address throttle (429 RATE_LIMITED with Retry-After once the
   * address has made SIGNUP_ATTEMPTS_PER_HOUR sign-ups within the hour). A sign-up that made an
   * account or found the email taken counts (each one tells whether an account exists); any other
   * refusal (its input, a busy server) is taken back.
   */
  async signUp<R>(address: string, attempt: () => Promise<R>): Promise<R> {
    const limits = this.#passwordAttempts;
    if (limits === null) return attempt();
    return this.#counted(
      [{ key: `signup-address:${address}`, limit: limits.signUpPerAddress, seconds: SIGN_UP_SECONDS }],
      (wait) => `Too many sign-ups from this address; try again in ${inWords(wait)}`,
      attempt, (error) => isCode(error, 'USER_EXISTS'), true,
    );
  }

  /**
   * Claims one attempt on every counter, runs `attempt`, and keeps the claim when it succeeded
   * (if `keepSuccess`) or failed with an error `keepFailure` accepts; else takes it back.
   */
  async #counted<R>(
    counters: readonly AttemptCounter[], refusal: (waitSeconds: number) => string, attempt: () => Promise<R>,
    keepFailure: (error: unknown) => boolean, keepSuccess = false,
  ): Promise<R> {
    const wait = await this.#rateLimits.claimAttempt(counters);
    if (wait > 0) throw new AppError('RATE_LIMITED', refusal(wait), undefined, { 'Retry-After': String(wait) });
    let keep = false;
    try {
      const result = await attempt();
      keep = keepSuccess;
      return result;
    } catch (error) {
      keep = keepFailure(error);
      throw error;
    } finally {
      // Best effort: a store that cannot take it back leaves the attempt counted, never the call failed.
      if (!keep) await this.#rateLimits.releaseAttempt(counters).catch(() => undefined);
    }
  }

  /**
   * The principal of an `Authorization` header value (undefined: none was sent). A refusal is
   * returned, not thrown, with the principal when the credential was identified (a revoked or
   * expired token), so the caller can still record the call under it; throw `refused` then.
   * A refused token counts against the address's failed-auth throttle, and a throttled address
   * gets 429 whatever it presents. Without a promise when no I/O was needed (a cached token): a
   * surface's hot path awaits only when it has to, each await costing a turn of the microtask queue.
   */
  authenticateNow(authorization: string | undefined, address: string, resource: ProtectedResource): Verification | Promise<Verification> {
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    if (match === null) {
      return this.#refuse({
        principal: null,
        refused: new AppError('UNAUTHORIZED', authorization === undefined
          ? 'An Authorization: Bearer token is required'
          : 'The Authorization header is not a Bearer token'),
      }, authorization, address, resource);
    }
    const verification = this.#verify(match[1], resource.resource);
    if (isPromise(verification)) {
      return verification.then((v) => (v.refused === null ? v : this.#refuse(v, authorization, address, resource)));
    }
    return verification.refused === null ? verification : this.#refuse(verification, authorization, address, resource);
  }

  async #refuse(verification: Verification, authorization: string | undefined, address: string, resource: ProtectedResource): Promise<Verification> {
    if (verification.refused === null) return verification;
    // The throttle is read only here and in admit (one Redis round trip with the windows there).
    const blocked = await this.#rateLimits.failedAuthBlockedFor(address);
    if (blocked > 0) return { principal: verification.principal, refused: throttled(blocked) };
    if (authorization !== undefined) await this.#rateLimits.recordFailedAuth(address);
    const { code, message, details } = verification.refused;
    const hint = authorization === undefined ? resource.missingToken : resource.invalidToken;
    return { principal: verification.principal, refused: new AppError(code, message, details, { 'WWW-Authenticate': hint }) };
  }

  #verify(token: string, resource: string): Verification | Promise<Verification> {
    for (const verifier of this.#verifiers) {
      if (verifier.recognises(token)) return verifier.verify(token, resource);
    }
    return refusal('malformed');
  }

  /** The bucket of calls made with this principal's credential. */
  tokenBucket(principal: Principal): RateBucket {
    return { key: principal.bucket, limits: this.#tokenLimits };
  }

  /** The bucket of a signed-in user's card writes from the web editor. */
  cardWriteBucket(actor: Actor): RateBucket {
    return { key: `cards:${actor.userId}`, limits: this.#cardWriteLimits };
  }

  /**
   * Counts one call in `bucket` (429 RATE_LIMITED with Retry-After when a window is spent, or
   * while `address` is throttled for failed authentication; null skips that check). `reads` are
   * shared keys whose values come back in `values`, read in the same round trip.
   */
  async admit(bucket: RateBucket, address: string | null, reads: readonly string[]): Promise<Admitted> {
    return this.admitNow(bucket, address, reads);
  }

  /** One write from the pages (cards, decks, imports, restores, copies) in the person's web bucket. */
  async admitWebWrite(actor: Actor): Promise<void> {
    await this.admitNow(this.cardWriteBucket(actor), null, NO_READS);
  }

  /**
   * admit, without a promise when the store counts in memory (a single instance): the refusal is
   * then thrown at once.
   */
  admitNow(bucket: RateBucket, address: string | null, reads: readonly string[]): Admitted | Promise<Admitted> {
    const admission = this.#rateLimits.admit(bucket, address, reads, this.#clock.now().getTime());
    return isPromise(admission) ? admission.then((a) => this.#admitted(bucket, a)) : this.#admitted(bucket, admission);
  }

  #admitted(bucket: RateBucket, admission: Admission): Admitted {
    if (admission.decision === null) throw throttled(admission.throttledSeconds);
    const { decision } = admission;
    const rateLimitPolicy = this.#policyHeader(bucket.limits);
    const rateLimit = rateLimitHeader(decision);
    if (!decision.allowed) {
      throw new AppError('RATE_LIMITED', `Rate limit of ${decision.limit} requests per ${decision.window} exceeded`, {
        window: decision.window, limit: decision.limit,
      }, { 'RateLimit-Policy': rateLimitPolicy, RateLimit: rateLimit, 'Retry-After': String(decision.resetSeconds) });
    }
    return { rateLimitPolicy, rateLimit, values: admission.values };
  }

  #policyHeader(limits: WindowLimits): string {
    let header = this.#policyHeaders.get(limits);
    if (header === undefined) {
      header = `"minute";q=${limits.perMinute};w=60, "day";q=${limits.perDay};w=86400`;
      this.#policyHeaders.set(limits, header);
    }
    return header;
  }

  /**
   * A call made with `principal`'s credential, after authentication: counted in its token bucket
   * (429), then its scope checked (403, carrying the admission's RateLimit headers as a 429 does).
   * What the API's routes and MCP's tool calls both run; without a promise when the store counts
   * in memory.
   */
  admitCall(principal: Principal, scope: Scope | null, resource: ProtectedResource, address: string, reads: readonly string[]): Admitted | Promise<Admitted> {
    const admission = this.admitNow(this.tokenBucket(principal), address, reads);
    return isPromise(admission) ? admission.then((a) => this.#scoped(principal, scope, resource, a)) : this.#scoped(principal, scope, resource, admission);
  }

  #scoped(principal: Principal, scope: Scope | null, resource: ProtectedResource, admitted: Admitted): Admitted {
    try {
      this.requireScope(principal, scope, resource);
    } catch (error) {
      const { code, message, details, headers } = error as AppError;
      throw new AppError(code, message, details, { 'RateLimit-Policy': admitted.rateLimitPolicy, RateLimit: admitted.rateLimit, ...headers });
    }
    return admitted;
  }

  /** 403 FORBIDDEN unless the principal holds `scope` (null: any valid token will do). */
  requireScope(principal: Principal, scope: Scope | null, resource: ProtectedResource): void {
    if (scope === null || principal.scopes.includes(scope)) return;
    throw new AppError('FORBIDDEN', `This call needs the ${scope} scope`, { requiredScope: scope }, {
      'WWW-Authenticate': challenge(resource.metadataUrl, `error="insufficient_scope", scope="${scope}", `),
    });
  }

  /** Records a call in the credential's activity log. Never delays or fails the call. */
  record(principal: Principal, call: CallRecord): void {
    this.#activity.record({
      tokenId: principal.credentialId,
      userId: principal.userId,
      at: this.#clock.now().toISOString(),
      method: call.method,
      route: call.route,
      deckId: call.deckId,
      status: call.status,
      durationMs: call.durationMs,
      clientIp: call.address,
      // U+0000 cannot reach PostgreSQL text through the JSON batch (HTTP parsers refuse it anyway).
      userAgent: call.userAgent === null ? null : call.userAgent.slice(0, 500).replaceAll('\0', ''),
      requestId: call.requestId,
      errorCode: call.status >= 400 ? call.errorCode ?? null : null,
    });
  }

  /** A write run at most once per Idempotency-Key: see runIdempotent (idempotency.ts). */
  idempotent<R>(
    actor: Actor, call: IdempotentCall | null,
    write: (beforeCommit: BeforeCommit<R> | undefined) => Promise<R>,
    respond: (result: R) => StoredResponse,
  ): Promise<IdempotentOutcome> {
    return runIdempotent(this.#ctx, actor, call, write, respond);
  }
}

/** Sign-ups are counted per address over an hour from the first one. */
const SIGN_UP_SECONDS = 3600;

function isCode(error: unknown, code: AppError['code']): boolean {
  return error instanceof AppError && error.code === code;
}

/** `45 seconds`, `12 minutes`: a wait as a person reads it. */
function inWords(seconds: number): string {
  if (seconds <= 90) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minutes`;
}

function throttled(seconds: number): AppError {
  return new AppError('RATE_LIMITED', 'Too many failed authentication attempts from this address', undefined, {
    'Retry-After': String(seconds),
  });
}

export function rateLimitHeader(decision: RateDecision): string {
  return `"${decision.window}";r=${decision.remaining};t=${decision.resetSeconds}`;
}
