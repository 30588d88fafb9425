import type { Db } from '../../db/database.ts';

export interface User {
  id: string;
  email: string;
  createdAt: string;
}

export async function insertUser(db: Db, user: User): Promise<void> {
  await db.insertInto('users').values({ id: user.id, email: user.email, created_at: user.createdAt, updated_at: user.createdAt }).execute();
}

export async function findUserByEmail(db: Db, email: string): Promise<User | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'created_at']).where('email', '=', email).executeTakeFirst();
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : null;
}

/**
 * Takes the user's row lock for the rest of the transaction (a no-op write), so per-user
 * invariants such as the deck limit hold under concurrent requests on either store.
 */
export async function lockUser(db: Db, userId: string): Promise<void> {
  await db.updateTable('users').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', userId).execute();
}
