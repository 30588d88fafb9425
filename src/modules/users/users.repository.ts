import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';

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
  await updateUserInPlace(db, userId);
}

// Compiled once (on every deck create): Kysely built and compiled it in about 30 µs each time.
const updateUserInPlace = preparedQuery((db: Db, userId: string) => db.updateTable('users').set((eb) => ({ updated_at: eb.ref('updated_at') })).where('id', '=', userId), ['']);

export async function findUserById(db: Db, id: string): Promise<User | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'created_at']).where('id', '=', id).executeTakeFirst();
  return row ? { id: row.id, email: row.email, createdAt: row.created_at } : null;
}

/** The user and their password hash (null: no password set), for a sign-in. */
export async function findCredentials(db: Db, email: string): Promise<{ user: User; passwordHash: string | null } | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'created_at', 'password_hash']).where('email', '=', email).executeTakeFirst();
  return row ? { user: { id: row.id, email: row.email, createdAt: row.created_at }, passwordHash: row.password_hash } : null;
}

export async function findPasswordHash(db: Db, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('password_hash').where('id', '=', userId).executeTakeFirst();
  return row?.password_hash ?? null;
}

export async function setPasswordHash(db: Db, userId: string, hash: string, at: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: hash, updated_at: at }).where('id', '=', userId).execute();
}

export async function insertUserWithPassword(db: Db, user: User, passwordHash: string): Promise<boolean> {
  const inserted = await db.insertInto('users')
    .values({ id: user.id, email: user.email, created_at: user.createdAt, updated_at: user.createdAt, password_hash: passwordHash })
    .onConflict((oc) => oc.column('email').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}
