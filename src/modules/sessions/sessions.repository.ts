import type { Db } from '../../db/database.ts';

export interface SessionRow {
  idHash: string;
  userId: string;
  email: string;
  createdAt: string;
  seenAt: string;
}

export async function insertSession(db: Db, s: { idHash: string; userId: string; at: string }): Promise<void> {
  await db.insertInto('web_sessions').values({ id_hash: s.idHash, user_id: s.userId, created_at: s.at, seen_at: s.at }).execute();
}

/** The session and its user's email, in one query (every page asks for it). */
export async function findSession(db: Db, idHash: string): Promise<SessionRow | null> {
  const row = await db.selectFrom('web_sessions').innerJoin('users', 'users.id', 'web_sessions.user_id')
    .select(['web_sessions.id_hash', 'web_sessions.user_id', 'users.email', 'web_sessions.created_at', 'web_sessions.seen_at'])
    .where('web_sessions.id_hash', '=', idHash).executeTakeFirst();
  return row ? { idHash: row.id_hash, userId: row.user_id, email: row.email, createdAt: row.created_at, seenAt: row.seen_at } : null;
}

export async function touchSession(db: Db, idHash: string, at: string): Promise<void> {
  await db.updateTable('web_sessions').set({ seen_at: at }).where('id_hash', '=', idHash).execute();
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of the user; returns how many there were. */
export async function deleteSessionsOfUser(db: Db, userId: string): Promise<number> {
  const result = await db.deleteFrom('web_sessions').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteSessionsSeenBefore(db: Db, before: string): Promise<void> {
  await db.deleteFrom('web_sessions').where('seen_at', '<', before).execute();
}
