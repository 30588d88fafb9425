import { randomBytes } from 'node:crypto';
import type { Db } from '../../db/database.ts';

/** A server-wide secret, created once by whichever process gets there first, then shared. */
export async function getOrCreateSecret(db: Db, key: string, make: () => string = () => randomBytes(32).toString('base64url')): Promise<string> {
  await db.insertInto('settings')
    .values({ key, value: make() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirstOrThrow();
  return row.value;
}
