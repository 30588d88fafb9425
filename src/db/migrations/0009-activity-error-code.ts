// Frozen in time: never edit a migration that has shipped; add a new one.
// The catalog code of a refused call (`DECK_NOT_FOUND`, `RATE_LIMITED`, ...) beside its status, so
// the activity log says why a call failed, as Stripe's request logs do (null for a success).
import type { Kysely } from 'kysely';
import { textType } from '../dialect-info.ts';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('activity').addColumn('error_code', textType(db)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('activity').dropColumn('error_code').execute();
}
