import type { Db } from '../../db/database.ts';

export interface IdempotencyRecord {
  requestHash: string;
  state: 'pending' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: string;
  claimedAt: string;
}

export interface IdempotencyId {
  userId: string;
  operation: string;
  key: string;
}

function where(id: IdempotencyId) {
  return { user_id: id.userId, operation: id.operation, idempotency_key: id.key };
}

/** Inserts a pending claim; false if a record for this key already exists. */
export async function insertClaim(db: Db, id: IdempotencyId, requestHash: string, at: string): Promise<boolean> {
  const result = await db.insertInto('idempotency_keys').values({
    ...where(id), request_hash: requestHash, state: 'pending', response_status: null, response_body: null,
    created_at: at, claimed_at: at,
  }).onConflict((oc) => oc.columns(['user_id', 'operation', 'idempotency_key']).doNothing()).executeTakeFirst();
  return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
}

export async function findRecord(db: Db, id: IdempotencyId): Promise<IdempotencyRecord | null> {
  const row = await db.selectFrom('idempotency_keys').selectAll()
    .where('user_id', '=', id.userId).where('operation', '=', id.operation).where('idempotency_key', '=', id.key)
    .executeTakeFirst();
  if (!row) return null;
  return {
    requestHash: row.request_hash,
    state: row.state as IdempotencyRecord['state'],
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    responseBody: row.response_body,
    createdAt: row.created_at,
    claimedAt: row.claimed_at,
  };
}

/** Takes over a record whose claim or lifetime ran out; false if another request got there first. */
export async function reclaim(db: Db, id: IdempotencyId, previous: IdempotencyRecord, requestHash: string, at: string): Promise<boolean> {
  const result = await db.updateTable('idempotency_keys')
    .set({ request_hash: requestHash, state: 'pending', response_status: null, response_body: null, created_at: at, claimed_at: at })
    .where('user_id', '=', id.userId).where('operation', '=', id.operation).where('idempotency_key', '=', id.key)
    .where('claimed_at', '=', previous.claimedAt).where('state', '=', previous.state)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function completeClaim(db: Db, id: IdempotencyId, status: number, body: string): Promise<void> {
  await db.updateTable('idempotency_keys').set({ state: 'done', response_status: status, response_body: body })
    .where('user_id', '=', id.userId).where('operation', '=', id.operation).where('idempotency_key', '=', id.key)
    .execute();
}

export async function releaseClaim(db: Db, id: IdempotencyId): Promise<void> {
  await db.deleteFrom('idempotency_keys')
    .where('user_id', '=', id.userId).where('operation', '=', id.operation).where('idempotency_key', '=', id.key)
    .where('state', '=', 'pending')
    .execute();
}

export async function deleteRecordsBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}
