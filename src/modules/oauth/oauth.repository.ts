// oidc-provider's models in the project's database (table oauth_entities): the same SQL on SQLite
// and PostgreSQL. Payloads are JSON text written by oidc-provider itself, never outside text.
import type { Db } from '../../db/database.ts';

export interface OauthEntity {
  readonly payload: Record<string, unknown>;
  readonly expiresAt: string | null;
  readonly consumedAt: string | null;
}

export interface OauthEntityRow {
  model: string;
  id: string;
  payload: string;
  grantId: string | null;
  accountId: string | null;
  uid: string | null;
  expiresAt: string | null;
}

function entity(row: { payload: string; expires_at: string | null; consumed_at: string | null }): OauthEntity {
  return { payload: JSON.parse(row.payload) as Record<string, unknown>, expiresAt: row.expires_at, consumedAt: row.consumed_at };
}

export async function upsertEntity(db: Db, row: OauthEntityRow): Promise<void> {
  const values = {
    model: row.model, id: row.id, payload: row.payload, grant_id: row.grantId, account_id: row.accountId,
    uid: row.uid, expires_at: row.expiresAt, consumed_at: null,
  };
  await db.insertInto('oauth_entities').values(values)
    .onConflict((oc) => oc.columns(['model', 'id']).doUpdateSet({
      payload: values.payload, grant_id: values.grant_id, account_id: values.account_id, uid: values.uid, expires_at: values.expires_at,
    }))
    .execute();
}

/** A client row kept for good (it no longer expires as an unused registration). */
export async function keepClient(db: Db, clientId: string): Promise<void> {
  await db.updateTable('oauth_entities').set({ expires_at: null })
    .where('model', '=', 'Client').where('id', '=', clientId).where('expires_at', 'is not', null).execute();
}

export async function findEntity(db: Db, model: string, id: string): Promise<OauthEntity | null> {
  const row = await db.selectFrom('oauth_entities').select(['payload', 'expires_at', 'consumed_at'])
    .where('model', '=', model).where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : entity(row);
}

export async function findEntityByUid(db: Db, model: string, uid: string): Promise<{ id: string; entity: OauthEntity } | null> {
  const row = await db.selectFrom('oauth_entities').select(['id', 'payload', 'expires_at', 'consumed_at'])
    .where('model', '=', model).where('uid', '=', uid).executeTakeFirst();
  return row === undefined ? null : { id: row.id, entity: entity(row) };
}

export async function consumeEntity(db: Db, model: string, id: string, at: string): Promise<void> {
  await db.updateTable('oauth_entities').set({ consumed_at: at }).where('model', '=', model).where('id', '=', id).execute();
}

/**
 * A revoked access token is kept under this model rather than deleted, so that presenting it is
 * refused as revoked (TOKEN_REVOKED), as a revoked personal access token is, and not as unknown.
 * oidc-provider never reads this model: to it the token is gone.
 */
export const REVOKED_ACCESS_TOKEN = 'RevokedAccessToken';
/** How long an access token's row outlives its expiry, revoked or not (purgeExpiredEntities). */
export const SPENT_TOKEN_RETENTION_MS = 30 * 86_400_000;

/** An access token's row, live or revoked, in one read (the verifier's lookup). */
export async function findAccessToken(db: Db, id: string): Promise<{ entity: OauthEntity; revoked: boolean } | null> {
  const row = await db.selectFrom('oauth_entities').select(['model', 'payload', 'expires_at', 'consumed_at'])
    .where('model', 'in', ['AccessToken', REVOKED_ACCESS_TOKEN]).where('id', '=', id).executeTakeFirst();
  return row === undefined ? null : { entity: entity(row), revoked: row.model === REVOKED_ACCESS_TOKEN };
}

function revokeAccessTokens(db: Db) {
  return db.updateTable('oauth_entities').set({ model: REVOKED_ACCESS_TOKEN }).where('model', '=', 'AccessToken');
}

export async function destroyEntity(db: Db, model: string, id: string): Promise<void> {
  if (model === 'AccessToken') await revokeAccessTokens(db).where('id', '=', id).execute();
  else await db.deleteFrom('oauth_entities').where('model', '=', model).where('id', '=', id).execute();
}

/**
 * The rows of a grant: of one model (oidc-provider's revokeByGrantId), or all, the grant too.
 * Access tokens are kept as revoked (REVOKED_ACCESS_TOKEN), and so are those revoked before.
 */
export async function destroyByGrant(db: Db, grantId: string, model: string | null): Promise<void> {
  if (model === null || model === 'AccessToken') await revokeAccessTokens(db).where('grant_id', '=', grantId).execute();
  if (model === 'AccessToken') return;
  let query = db.deleteFrom('oauth_entities').where('grant_id', '=', grantId).where('model', '!=', REVOKED_ACCESS_TOKEN);
  if (model !== null) query = query.where('model', '=', model);
  await query.execute();
}

/** The grants of a user (model Grant), live ones only. */
export async function listGrantsOfAccount(db: Db, accountId: string, now: string): Promise<{ id: string; payload: Record<string, unknown> }[]> {
  const rows = await db.selectFrom('oauth_entities').select(['id', 'payload', 'expires_at', 'consumed_at'])
    .where('account_id', '=', accountId).where('model', '=', 'Grant')
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .orderBy('id').execute();
  return rows.map((row) => ({ id: row.id, payload: entity(row).payload }));
}

/** Rows past their expiry; access tokens, revoked or not, SPENT_TOKEN_RETENTION_MS after it. */
export async function purgeExpiredEntities(db: Db, now: Date): Promise<void> {
  const tokens = ['AccessToken', REVOKED_ACCESS_TOKEN];
  const tokensBefore = new Date(now.getTime() - SPENT_TOKEN_RETENTION_MS).toISOString();
  await db.deleteFrom('oauth_entities').where((eb) => eb.or([
    eb.and([eb('model', 'not in', tokens), eb('expires_at', '<', now.toISOString())]),
    eb.and([eb('model', 'in', tokens), eb('expires_at', '<', tokensBefore)]),
  ])).execute();
}
