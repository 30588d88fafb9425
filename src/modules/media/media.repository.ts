// SQL for stored media: the images (once per content hash) and who owns them (their quota).
import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import { preparedQuery } from '../../db/prepared.ts';
import type { ImageContentType } from './image-probe.ts';

export interface MediaInfo {
  hash: string;
  contentType: ImageContentType;
  bytes: number;
  width: number;
  height: number;
}

export interface MediaBlob extends MediaInfo {
  data: Buffer;
}

export interface MediaOwnership {
  userId: string;
  hash: string;
  unreferencedSince: string | null;
}

const selectBlob = preparedQuery((db: Db, hash: string) => db.selectFrom('media_blobs')
  .select(['hash', 'content_type', 'bytes', 'width', 'height', 'data']).where('hash', '=', hash), ['']);

export async function findMediaBlob(db: Db, hash: string): Promise<MediaBlob | null> {
  const row = (await selectBlob(db, hash)).at(0);
  if (row === undefined) return null;
  return {
    hash: row.hash, contentType: row.content_type as ImageContentType, bytes: Number(row.bytes),
    width: Number(row.width), height: Number(row.height), data: row.data,
  };
}

/**
 * Stores the image unless one with its hash is there already (then the bytes are the same); true
 * when this call stored it.
 */
export async function insertMediaBlob(db: Db, blob: MediaBlob, now: string): Promise<boolean> {
  const result = await db.insertInto('media_blobs').values({
    hash: blob.hash, content_type: blob.contentType, bytes: blob.bytes, width: blob.width, height: blob.height, data: blob.data, created_at: now,
  }).onConflict((oc) => oc.column('hash').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Which of these hashes are stored. */
export async function storedMediaHashes(db: Db, hashes: readonly string[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (let i = 0; i < hashes.length; i += 500) {
    const rows = await db.selectFrom('media_blobs').select('hash').where('hash', 'in', hashes.slice(i, i + 500)).execute();
    for (const row of rows) stored.add(row.hash);
  }
  return stored;
}

/** Makes the user an owner of the media (again: a re-upload counts as a fresh reference). */
export async function addMediaOwner(db: Db, userId: string, hash: string, now: string): Promise<void> {
  await db.insertInto('media_owners').values({ user_id: userId, hash, created_at: now, unreferenced_since: null })
    .onConflict((oc) => oc.columns(['user_id', 'hash']).doUpdateSet({ unreferenced_since: null })).execute();
}

/** Which of these hashes the user already owns. */
export async function ownedHashes(db: Db, userId: string, hashes: readonly string[]): Promise<Set<string>> {
  const owned = new Set<string>();
  for (let i = 0; i < hashes.length; i += 500) {
    const rows = await db.selectFrom('media_owners').select('hash')
      .where('user_id', '=', userId).where('hash', 'in', hashes.slice(i, i + 500)).execute();
    for (const row of rows) owned.add(row.hash);
  }
  return owned;
}

/** Bytes of every image the user owns. */
export async function mediaBytesOfUser(db: Db, userId: string): Promise<number> {
  const row = await db.selectFrom('media_owners').innerJoin('media_blobs', 'media_blobs.hash', 'media_owners.hash')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('media_blobs.bytes'), sql<number>`0`).as('total'))
    .where('media_owners.user_id', '=', userId).executeTakeFirst();
  return Number(row?.total ?? 0);
}

/** The images with these hashes, bytes included (an export's media). */
export async function findMediaBlobs(db: Db, hashes: readonly string[]): Promise<MediaBlob[]> {
  const out: MediaBlob[] = [];
  for (let i = 0; i < hashes.length; i += 100) {
    const rows = await db.selectFrom('media_blobs').select(['hash', 'content_type', 'bytes', 'width', 'height', 'data'])
      .where('hash', 'in', hashes.slice(i, i + 100)).execute();
    for (const row of rows) {
      out.push({ hash: row.hash, contentType: row.content_type as ImageContentType, bytes: Number(row.bytes), width: Number(row.width), height: Number(row.height), data: row.data });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The purge: what refers to media, and who owns it.

const PAGE = 500;

/**
 * Calls `visit(userId, text)` for every card content and deck thumbnail that mentions `/media/`,
 * page by page (keyset on the card id), trashed decks included: a deck that can come back keeps
 * its images.
 */
export async function scanMediaMentions(db: Db, visit: (userId: string, text: string) => void): Promise<void> {
  let after = '';
  for (;;) {
    const rows = await db.selectFrom('cards').innerJoin('decks', 'decks.id', 'cards.deck_id')
      .select(['cards.id', 'cards.data', 'decks.user_id'])
      .where('cards.data', 'like', '%/media/%').where('cards.id', '>', after)
      .orderBy('cards.id').limit(PAGE).execute();
    for (const row of rows) visit(row.user_id, row.data);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1].id;
  }
  const decks = await db.selectFrom('decks').select(['user_id', 'thumbnail']).where('thumbnail', 'like', '%/media/%').execute();
  for (const deck of decks) if (deck.thumbnail !== null) visit(deck.user_id, deck.thumbnail);
}

/** Every ownership, page by page. */
export async function forEachMediaOwnership(db: Db, visit: (rows: MediaOwnership[]) => Promise<void>): Promise<void> {
  let after: { userId: string; hash: string } | null = null;
  for (;;) {
    let query = db.selectFrom('media_owners').select(['user_id', 'hash', 'unreferenced_since']).orderBy('user_id').orderBy('hash').limit(PAGE);
    if (after !== null) {
      const { userId, hash } = after;
      query = query.where((eb) => eb.or([eb('user_id', '>', userId), eb.and([eb('user_id', '=', userId), eb('hash', '>', hash)])]));
    }
    const rows = (await query.execute()).map((r) => ({ userId: r.user_id, hash: r.hash, unreferencedSince: r.unreferenced_since }));
    if (rows.length > 0) await visit(rows);
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1];
  }
}

export async function setUnreferencedSince(db: Db, owners: readonly MediaOwnership[], since: string | null): Promise<void> {
  for (const o of owners) {
    await db.updateTable('media_owners').set({ unreferenced_since: since }).where('user_id', '=', o.userId).where('hash', '=', o.hash).execute();
  }
}

/** Removes the ownerships still unreferenced since at most `cutoff`. */
export async function deleteStaleOwnerships(db: Db, owners: readonly MediaOwnership[], cutoff: string): Promise<void> {
  for (const o of owners) {
    await db.deleteFrom('media_owners').where('user_id', '=', o.userId).where('hash', '=', o.hash)
      .where('unreferenced_since', 'is not', null).where('unreferenced_since', '<=', cutoff).execute();
  }
}

/** Hashes of stored images nobody owns, created before `cutoff`. */
export async function unownedMediaHashes(db: Db, cutoff: string): Promise<string[]> {
  const rows = await db.selectFrom('media_blobs').select('hash').where('created_at', '<=', cutoff)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('media_owners').select('media_owners.hash').whereRef('media_owners.hash', '=', 'media_blobs.hash'))))
    .execute();
  return rows.map((r) => r.hash);
}

export async function deleteUnownedMediaBlob(db: Db, hash: string): Promise<void> {
  await db.deleteFrom('media_blobs').where('hash', '=', hash)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('media_owners').select('media_owners.hash').where('media_owners.hash', '=', hash))))
    .execute();
}
