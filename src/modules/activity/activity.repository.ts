import type { Db } from '../../db/database.ts';
import { insertRows } from '../../db/dialect-info.ts';

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
}

export async function insertActivity(db: Db, entries: ActivityEntry[]): Promise<void> {
  await insertRows(db, 'activity', entries.map((e) => ({
    token_id: e.tokenId, user_id: e.userId, at: e.at, method: e.method, route: e.route, deck_id: e.deckId,
    status: e.status, duration_ms: e.durationMs, client_ip: e.clientIp, user_agent: e.userAgent, request_id: e.requestId,
  })));
}

export async function listActivityOfToken(db: Db, tokenId: string, limit: number): Promise<ActivityEntry[]> {
  const rows = await db.selectFrom('activity').selectAll().where('token_id', '=', tokenId)
    .orderBy('at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((r) => ({
    tokenId: r.token_id, userId: r.user_id, at: r.at, method: r.method, route: r.route, deckId: r.deck_id,
    status: Number(r.status), durationMs: Number(r.duration_ms), clientIp: r.client_ip, userAgent: r.user_agent, requestId: r.request_id,
  }));
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
