// Idempotency-Key, as a function any surface calls around a write: the API's idempotent routes
// (src/surfaces/api/idempotency.ts), an MCP tool's `idempotencyKey`. The response is stored by the
// write's own transaction (BeforeCommit), so a crash can never leave a committed write whose key is
// still free to run it again; a failed write frees the key, so a retry runs again.
import { createHash } from 'node:crypto';
import type { BeforeCommit, ServiceContext } from '../context.ts';
import type { Actor } from '../modules/identity/principal.ts';
import { claimKey, releaseKey, storeResponse } from '../modules/idempotency/idempotency.service.ts';

export interface IdempotentCall {
  /** The operation the key is scoped to (with the user): `append-cards`, `import-deck`. */
  readonly operation: string;
  readonly key: string;
  /** A canonical hash of everything the request says (path, query, body): same key, other hash is a conflict. */
  readonly requestHash: string;
}

/** Deeper than any body the schemas let through; the walk below stops there rather than overflow. */
const MAX_CANONICAL_DEPTH = 64;

/**
 * JSON with object keys sorted at every depth (arrays keep their order), so two bodies equal to any
 * JSON reader (`{"a":1,"b":2}` and `{"b":2,"a":1}`) give the same text. Values that JSON drops
 * (undefined) are dropped here too.
 */
export function canonicalJson(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(sortKeys(value, 0));
}

function sortKeys(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_CANONICAL_DEPTH) throw new Error(`canonicalJson: nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  if (Array.isArray(value)) return value.map((item: unknown) => sortKeys(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key], depth + 1);
  return out;
}

/**
 * The request hash of an IdempotentCall: method (or a surface's verb), route (or tool name), path
 * and query parameters, body (a string body is markdown), in canonical form, so key order and
 * parameter order never make the same request a conflict. Every surface hashes through this.
 */
export function requestHash(method: string, route: string, params: unknown, query: unknown, body: unknown): string {
  // Bytes (an Anki package) are hashed as bytes, not as a JSON array of numbers.
  const content = Buffer.isBuffer(body) ? { sha256: createHash('sha256').update(body).digest('base64url') } : body;
  const parts = [method, route, params ?? {}, query ?? {}, typeof content === 'string' ? { markdown: content } : content ?? null];
  return createHash('sha256').update(canonicalJson(parts)).digest('base64url');
}

/** A write's response body as stored and sent: the key, when one was given, echoed as `idempotencyKey`. */
export function storedBody(call: IdempotentCall | null, result: object): string {
  return JSON.stringify(call === null ? result : { ...result, idempotencyKey: call.key });
}

/** A response as stored and replayed: its status and its exact bytes. */
export interface StoredResponse {
  readonly status: number;
  readonly body: string;
}

export interface IdempotentOutcome extends StoredResponse {
  /** True when this is the stored response of an earlier request with the key. */
  readonly replayed: boolean;
}

/**
 * Runs `write` at most once per key (`call` null: no key, it just runs). `write` must pass the
 * before-commit hook it is given to its service, so the response (`respond`, serialised once) is
 * stored in the write's transaction; it comes back as these same bytes. A replay returns the
 * stored response without running the write; a running claim is 409 IDEMPOTENCY_KEY_IN_USE, another
 * request under the key 409 IDEMPOTENCY_CONFLICT. Only a 2xx response is ever stored.
 */
export async function runIdempotent<R>(
  ctx: ServiceContext, actor: Actor, call: IdempotentCall | null,
  write: (beforeCommit: BeforeCommit<R> | undefined) => Promise<R>,
  respond: (result: R) => StoredResponse,
): Promise<IdempotentOutcome> {
  if (call === null) return { ...respond(await write(undefined)), replayed: false };
  const claim = await claimKey(ctx, actor, call);
  if (claim.kind === 'replay') return { status: claim.status, body: claim.body, replayed: true };
  // Set by the hook: the response stored in the write's transaction.
  const kept: { response: StoredResponse | null } = { response: null };
  try {
    const result = await write(async (trx, written) => {
      const response = respond(written);
      if (!isSuccess(response)) return;
      await storeResponse(trx, claim.id, response.status, response.body);
      kept.response = response;
    });
    const response = kept.response ?? respond(result);
    // A write that did not take the hook still has its response kept, once it is known.
    if (kept.response === null && isSuccess(response)) await storeResponse(ctx.db, claim.id, response.status, response.body);
    if (!isSuccess(response)) await releaseKey(ctx, claim.id);
    return { ...response, replayed: false };
  } catch (error) {
    await releaseKey(ctx, claim.id).catch(() => {});
    throw error;
  }
}

function isSuccess(response: StoredResponse): boolean {
  return response.status >= 200 && response.status < 300;
}
