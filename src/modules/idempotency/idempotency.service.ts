// Idempotency keys: scoped to the user and the operation, kept 24 hours. Only a 2xx response is
// stored; a failed request frees its key; a claim left by a crashed process is taken over after
// 60 seconds. The runner that puts these together around a write is src/policy/idempotency.ts.
import type { ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import {
  completeClaim, findRecord, insertClaim, reclaim, releaseClaim, deleteRecordsBefore,
  type IdempotencyId,
} from './idempotency.repository.ts';

export type { IdempotencyId } from './idempotency.repository.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
export const ABANDONED_CLAIM_MS = 60_000;

export type ClaimOutcome =
  | { kind: 'claimed'; id: IdempotencyId }
  | { kind: 'replay'; status: number; body: string };

export interface ClaimInput {
  operation: string;
  key: string;
  /** A canonical hash of the request, so the same key with another request is a conflict. */
  requestHash: string;
}

function inUse(): AppError {
  return new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress', undefined, { 'Retry-After': '1' });
}

export async function claimKey(ctx: ServiceContext, actor: Actor, input: ClaimInput): Promise<ClaimOutcome> {
  const { db, clock } = ctx;
  const id: IdempotencyId = { userId: actor.userId, operation: input.operation, key: input.key };
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = clock.now();
    const at = now.toISOString();
    if (await insertClaim(db, id, input.requestHash, at)) return { kind: 'claimed', id };
    const record = await findRecord(db, id);
    if (record === null) continue; // released between our insert and read: try again
    const expired = now.getTime() - Date.parse(record.createdAt) >= IDEMPOTENCY_TTL_MS;
    const abandoned = record.state === 'pending' && now.getTime() - Date.parse(record.claimedAt) >= ABANDONED_CLAIM_MS;
    if (expired || abandoned) {
      if (await reclaim(db, id, record, input.requestHash, at)) return { kind: 'claimed', id };
      continue;
    }
    if (record.requestHash !== input.requestHash) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request');
    }
    if (record.state === 'pending') throw inUse();
    return { kind: 'replay', status: record.responseStatus ?? 200, body: record.responseBody ?? '' };
  }
  throw inUse();
}

/** Stores the response of a claimed key; inside the write's transaction when `db` is one. */
export async function storeResponse(db: Db, id: IdempotencyId, status: number, body: string): Promise<void> {
  await completeClaim(db, id, status, body);
}

/** Frees a claimed key whose request failed (a stored response stays). */
export async function releaseKey(ctx: ServiceContext, id: IdempotencyId): Promise<void> {
  await releaseClaim(ctx.db, id);
}

export async function purgeExpiredKeys(ctx: ServiceContext): Promise<void> {
  await deleteRecordsBefore(ctx.db, new Date(ctx.clock.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString());
}
