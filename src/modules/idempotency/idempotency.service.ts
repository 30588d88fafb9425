// Idempotency keys: scoped to the user and the operation, kept 24 hours. Only a 2xx response is
// stored; a failed request frees its key; a claim left by a crashed process is taken over after
// 60 seconds.
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import {
  completeClaim, findRecord, insertClaim, reclaim, releaseClaim, deleteRecordsBefore,
  type IdempotencyId,
} from './idempotency.repository.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
export const ABANDONED_CLAIM_MS = 60_000;

export type ClaimOutcome =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string };

export async function claimKey(db: Db, clock: Clock, id: IdempotencyId, requestHash: string): Promise<ClaimOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = clock.now();
    const at = now.toISOString();
    if (await insertClaim(db, id, requestHash, at)) return { kind: 'claimed' };
    const record = await findRecord(db, id);
    if (record === null) continue; // released between our insert and read: try again
    const expired = now.getTime() - Date.parse(record.createdAt) >= IDEMPOTENCY_TTL_MS;
    const abandoned = record.state === 'pending' && now.getTime() - Date.parse(record.claimedAt) >= ABANDONED_CLAIM_MS;
    if (expired || abandoned) {
      if (await reclaim(db, id, record, requestHash, at)) return { kind: 'claimed' };
      continue;
    }
    if (record.requestHash !== requestHash) {
      throw new AppError('IDEMPOTENCY_CONFLICT', 'This Idempotency-Key was used with a different request');
    }
    if (record.state === 'pending') {
      throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress', undefined, { 'Retry-After': '1' });
    }
    return { kind: 'replay', status: record.responseStatus ?? 200, body: record.responseBody ?? '' };
  }
  throw new AppError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still in progress', undefined, { 'Retry-After': '1' });
}

export async function completeKey(db: Db, id: IdempotencyId, status: number, body: string): Promise<void> {
  await completeClaim(db, id, status, body);
}

export async function releaseKey(db: Db, id: IdempotencyId): Promise<void> {
  await releaseClaim(db, id);
}

export async function purgeExpiredKeys(db: Db, clock: Clock): Promise<void> {
  await deleteRecordsBefore(db, new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS).toISOString());
}
