import type { Db } from '../../db/database.ts';
import type { Selectable } from 'kysely';
import { insertRows } from '../../db/dialect-info.ts';
import type { ActivityTable } from '../../db/types.ts';

export interface ActivityEntry {
  tokenId: string;
  userId: string;
  at: string;
  method: string;
  route: string;
  deckId: string | null;
  status: number;
  durationMs: number;
  clientIp: string | null;
  userAgent: string | null;
  requestId: string;
  /** The catalog code of a refused call, null for a success (and for calls recorded before it was kept). */
  errorCode: string | null;
}

export async function insertActivity(db: Db, entries: ActivityEntry[]): Promise<void> {
  await insertRows(db, 'activity', entries.map((e) => ({
    token_id: e.tokenId, user_id: e.userId, at: e.at, method: e.method, route: e.route, deck_id: e.deckId,
    status: e.status, duration_ms: e.durationMs, client_ip: e.clientIp, user_agent: e.userAgent, request_id: e.requestId, error_code: e.errorCode,
  })));
}

type Row = Selectable<ActivityTable>;

function toEntry(r: Row): ActivityEntry {
  return {
    tokenId: r.token_id, userId: r.user_id, at: r.at, method: r.method, route: r.route, deckId: r.deck_id,
    status: Number(r.status), durationMs: Number(r.duration_ms), clientIp: r.client_ip, userAgent: r.user_agent, requestId: r.request_id, errorCode: r.error_code,
  };
}

export async function listActivityOfToken(db: Db, tokenId: string, limit: number): Promise<ActivityEntry[]> {
  return listActivityOfTokens(db, [tokenId], limit);
}

/** The newest calls made with any of the tokens (an app's grants), newest first. */
export async function listActivityOfTokens(db: Db, tokenIds: readonly string[], limit: number): Promise<ActivityEntry[]> {
  if (tokenIds.length === 0) return [];
  const rows = await db.selectFrom('activity').selectAll().where('token_id', 'in', tokenIds)
    .orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map(toEntry);
}

/** Which calls an activity page shows: by status class, 429 apart from the other 4xx. */
export type ActivityOutcome = '2xx' | '4xx' | '5xx' | '429';

/**
 * A keyset page of a token's log, newest first: entries strictly older than `after` in
 * (at desc, id desc) order, each with its row id for the next page's key.
 */
export async function pageActivityOfToken(
  db: Db, tokenId: string, outcome: ActivityOutcome | null, limit: number, after: { at: string; id: number } | null,
): Promise<{ id: number; entry: ActivityEntry }[]> {
  let query = db.selectFrom('activity').selectAll().where('token_id', '=', tokenId);
  if (outcome === '2xx') query = query.where('status', '>=', 200).where('status', '<', 300);
  else if (outcome === '4xx') query = query.where('status', '>=', 400).where('status', '<', 500).where('status', '!=', 429);
  else if (outcome === '5xx') query = query.where('status', '>=', 500).where('status', '<', 600);
  else if (outcome === '429') query = query.where('status', '=', 429);
  if (after !== null) {
    query = query.where((eb) => eb.or([eb('at', '<', after.at), eb.and([eb('at', '=', after.at), eb('id', '<', after.id)])]));
  }
  const rows = await query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({ id: Number(r.id), entry: toEntry(r) }));
}

export async function deleteActivityBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('activity').where('at', '<', before).execute();
}

/** When the credential was last used (its newest activity entry), or null. */
export async function lastActivityOf(db: Db, tokenId: string): Promise<string | null> {
  const row = await db.selectFrom('activity').select('at').where('token_id', '=', tokenId)
    .orderBy('at', 'desc').limit(1).executeTakeFirst();
  return row?.at ?? null;
}
