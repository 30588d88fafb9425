import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { Scope } from '../identity/scopes.ts';

export interface TokenRecord {
  id: string;
  userId: string;
  kind: 'pat' | 'oauth';
  name: string;
  prefix: string;
  hash: string;
  scopes: Scope[];
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

type Row = {
  id: string; user_id: string; kind: string; name: string; prefix: string; hash: string;
  scopes: string; created_at: string; expires_at: string | null; revoked_at: string | null;
};

function toRecord(row: Row): TokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    kind: row.kind as TokenRecord['kind'],
    name: row.name,
    prefix: row.prefix,
    hash: row.hash,
    scopes: JSON.parse(row.scopes) as Scope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertToken(db: Db, t: TokenRecord): Promise<void> {
  await db.insertInto('tokens').values({
    id: t.id, user_id: t.userId, kind: t.kind, name: t.name, prefix: t.prefix, hash: t.hash,
    scopes: JSON.stringify(t.scopes), created_at: t.createdAt, expires_at: t.expiresAt, revoked_at: t.revokedAt,
  }).execute();
}

// On the path of every authenticated request: compiled once (db/prepared.ts).
const selectTokenByPrefix = preparedQuery((db: Db, prefix: string) => db.selectFrom('tokens').selectAll().where('prefix', '=', prefix), ['']);

export async function findTokenByPrefix(db: Db, prefix: string): Promise<TokenRecord | null> {
  const row = (await selectTokenByPrefix(db, prefix)).at(0);
  return row ? toRecord(row) : null;
}

export async function findTokenById(db: Db, id: string): Promise<TokenRecord | null> {
  const row = await db.selectFrom('tokens').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : null;
}

export async function listTokensOfUser(db: Db, userId: string): Promise<TokenRecord[]> {
  const rows = await db.selectFrom('tokens').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id').execute();
  return rows.map(toRecord);
}

export async function markTokenRevoked(db: Db, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('tokens').set({ revoked_at: at }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** A user's personal access tokens, newest first, each with the time of its latest recorded call. */
/**
 * A keyset page of a user's personal access tokens, newest first (created_at desc, id asc), with
 * each one's last use: tokens after `after` in that order.
 */
export async function pagePatsOfUserWithLastUse(
  db: Db, userId: string, limit: number, after: { createdAt: string; id: string } | null,
): Promise<(TokenRecord & { lastUsedAt: string | null })[]> {
  let query = db.selectFrom('tokens').selectAll()
    // One index probe per token (activity_token_at_idx), whatever the size of the log.
    .select((eb) => eb.selectFrom('activity').select((a) => a.fn.max('activity.at').as('at')).whereRef('activity.token_id', '=', 'tokens.id').as('last_used_at'))
    .where('user_id', '=', userId).where('kind', '=', 'pat');
  if (after !== null) {
    query = query.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.id)])]));
  }
  const rows = await query.orderBy('created_at', 'desc').orderBy('id').limit(limit).execute();
  return rows.map((r) => ({ ...toRecord(r), lastUsedAt: r.last_used_at ?? null }));
}

export async function lastUseOfToken(db: Db, id: string): Promise<string | null> {
  const row = await db.selectFrom('activity').select((eb) => eb.fn.max('at').as('at')).where('token_id', '=', id).executeTakeFirst();
  return row?.at ?? null;
}
