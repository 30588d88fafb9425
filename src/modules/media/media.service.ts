// Images in the database: uploaded (POST /media, the editor), brought in by Anki packages, served
// from /media/..., exported with a deck, and purged once no deck refers to them for a while.
import { inTransaction, type ServiceContext } from '../../context.ts';
import type { Db } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import type { Actor } from '../identity/principal.ts';
import { lockUser } from '../users/users.repository.ts';
import { MAX_IMAGE_BYTES, probeImage, type ImageFacts } from './image-probe.ts';
import { contentHash, hashOfMediaFile, mediaHashesIn, mediaId, mediaUrl } from './media-address.ts';
import {
  addMediaOwner, deleteStaleOwnerships, deleteUnownedMediaBlob, findMediaBlob, findMediaBlobs, forEachMediaOwnership,
  insertMediaBlob, mediaBytesOfUser, ownedHashes, scanMediaMentions, setUnreferencedSince, storedMediaHashes, unownedMediaHashes,
  type MediaBlob, type MediaOwnership,
} from './media.repository.ts';
import type { StoredMedia } from './media.schemas.ts';

/** A stored image as the media surface serves it. */
export type { MediaBlob } from './media.repository.ts';

/** An image checked and hashed, ready to be stored. */
export interface PreparedImage {
  readonly hash: string;
  readonly data: Buffer;
  readonly facts: ImageFacts;
}

/** Checks an image (type from its bytes, size, dimensions) and hashes it; no I/O. */
export function prepareImage(data: Buffer, declaredType: string | null = null): PreparedImage {
  if (data.length === 0) throw new AppError('BAD_REQUEST', 'The request body is empty');
  if (data.length > MAX_IMAGE_BYTES) {
    throw new AppError('PAYLOAD_TOO_LARGE', `An image may be at most ${MAX_IMAGE_BYTES} bytes (5 MiB); this one is ${data.length}`);
  }
  const facts = probeImage(data, declaredType);
  return { hash: contentHash(data), data, facts };
}

export function storedMedia(image: PreparedImage): StoredMedia {
  return {
    id: mediaId(image.hash),
    url: mediaUrl(image.hash, image.facts.contentType),
    contentType: image.facts.contentType,
    bytes: image.data.length,
    width: image.facts.width,
    height: image.facts.height,
  };
}

/** POST /media: one image in, its address out. Uploading the same bytes again returns the same. */
export async function uploadMedia(ctx: ServiceContext, actor: Actor, input: { data: Buffer; declaredType: string | null }): Promise<StoredMedia> {
  const image = prepareImage(input.data, input.declaredType);
  await inTransaction(ctx.db, (trx) => storeImages(ctx, trx, actor, [image]));
  return storedMedia(image);
}

/** Images written per transaction when they are staged, with a turn of the event loop between. */
const STAGE_BATCH_BYTES = 4 * 1024 * 1024;

const unique = (images: readonly PreparedImage[]): PreparedImage[] => [...new Map(images.map((i) => [i.hash, i])).values()];

/** 403 MEDIA_QUOTA_EXCEEDED unless the images the actor does not own yet fit in their quota. */
async function assertWithinQuota(ctx: ServiceContext, db: Db, actor: Actor, images: readonly PreparedImage[]): Promise<void> {
  const owned = await ownedHashes(db, actor.userId, images.map((i) => i.hash));
  const added = images.filter((i) => !owned.has(i.hash)).reduce((sum, i) => sum + i.data.length, 0);
  if (added === 0) return;
  const used = await mediaBytesOfUser(db, actor.userId);
  if (used + added > ctx.media.quotaBytes) {
    throw new AppError('MEDIA_QUOTA_EXCEEDED', `These images (${added} bytes) would take your media past its quota of ${ctx.media.quotaBytes} bytes (${used} used)`, {
      quotaBytes: ctx.media.quotaBytes, usedBytes: used, addedBytes: added,
    });
  }
}

/** Images this import wrote ahead of its transaction, which nobody owns until storeImages. */
export interface StagedImages {
  /** Hashes stored by the staging (not there before it). */
  readonly added: readonly string[];
}

const nextTurn = () => new Promise<void>((resolve) => { setImmediate(resolve); });

/**
 * Writes the bytes of many images (an Anki package's) ahead of the transaction that makes them the
 * actor's (storeImages), about 4 MiB per transaction with a turn of the event loop between. On
 * SQLite a transaction runs on the server's only thread: the 50 MB of a large package written in
 * the import's one transaction held every other request for the whole write (GET /healthz waited
 * 1.6 s, docs/performance.md "Formats"). A staged image is nobody's and counts against no quota;
 * the quota is checked first, so nobody stages past theirs. When the import then fails,
 * discardStagedImages removes what the staging added (the hourly purge would, after its grace).
 */
export async function stageImages(ctx: ServiceContext, actor: Actor, images: readonly PreparedImage[]): Promise<StagedImages> {
  const list = unique(images);
  if (list.length === 0) return { added: [] };
  await assertWithinQuota(ctx, ctx.db, actor, list);
  const added: string[] = [];
  const now = ctx.clock.now().toISOString();
  try {
    for (let at = 0; at < list.length;) {
      let bytes = 0;
      const batch: PreparedImage[] = [];
      while (at < list.length && (batch.length === 0 || bytes + list[at].data.length <= STAGE_BATCH_BYTES)) {
        bytes += list[at].data.length;
        batch.push(list[at++]);
      }
      await inTransaction(ctx.db, async (trx) => {
        for (const image of batch) {
          if (await insertMediaBlob(trx, blobOf(image), now)) added.push(image.hash);
        }
      });
      await nextTurn();
    }
  } catch (error) {
    await discardStagedImages(ctx, { added });
    throw error;
  }
  return { added };
}

/** Removes the staged images that nobody has come to own (the import that staged them failed). */
export async function discardStagedImages(ctx: ServiceContext, staged: StagedImages): Promise<void> {
  for (const [i, hash] of staged.added.entries()) {
    await deleteUnownedMediaBlob(ctx.db, hash);
    if (i % 50 === 49) await nextTurn();
  }
}

function blobOf(image: PreparedImage): MediaBlob {
  return { hash: image.hash, contentType: image.facts.contentType, bytes: image.data.length, width: image.facts.width, height: image.facts.height, data: image.data };
}

/**
 * Stores images for the actor inside the caller's transaction, within their quota (403
 * MEDIA_QUOTA_EXCEEDED counts only images they do not own yet). Takes the user's row lock, so
 * concurrent uploads cannot pass the quota together. Bytes already stored (staged by stageImages,
 * or anyone's) are not written again.
 */
export async function storeImages(ctx: ServiceContext, trx: Db, actor: Actor, images: readonly PreparedImage[]): Promise<void> {
  if (images.length === 0) return;
  const list = unique(images);
  await lockUser(trx, actor.userId);
  await assertWithinQuota(ctx, trx, actor, list);
  const stored = await storedMediaHashes(trx, list.map((i) => i.hash));
  const now = ctx.clock.now().toISOString();
  for (const image of list) {
    if (!stored.has(image.hash)) await insertMediaBlob(trx, blobOf(image), now);
    await addMediaOwner(trx, actor.userId, image.hash, now);
  }
}

/** The image at `/media/<fileName>`: 404 MEDIA_NOT_FOUND unless the name is its hash and extension. */
export async function readMediaFile(ctx: ServiceContext, fileName: string): Promise<MediaBlob> {
  const hash = hashOfMediaFile(fileName);
  const blob = hash === null ? null : await findMediaBlob(ctx.db, hash);
  if (blob === null || mediaUrl(blob.hash, blob.contentType) !== `/media/${fileName}`) {
    throw new AppError('MEDIA_NOT_FOUND', 'No media is stored at this address');
  }
  return blob;
}

/** The stored images that these texts refer to (a deck's export). */
export async function mediaReferencedBy(ctx: ServiceContext, texts: Iterable<string>): Promise<MediaBlob[]> {
  const hashes = new Set<string>();
  for (const text of texts) mediaHashesIn(text, hashes);
  return hashes.size === 0 ? [] : findMediaBlobs(ctx.db, [...hashes]);
}

export interface MediaPurge {
  /** Ownerships found unreferenced this run (their grace period starts). */
  readonly marked: number;
  /** Ownerships removed (unreferenced past the grace period). */
  readonly released: number;
  /** Images removed (owned by nobody and referred to by no deck). */
  readonly removed: number;
}

/**
 * The periodic purge. An ownership whose user has no card (in any deck, trashed ones included) or
 * deck thumbnail referring to the image is marked; once marked for the grace period it is removed,
 * freeing the user's quota; an image that nobody owns and no deck of anyone refers to is removed.
 * A reference made again before then clears the mark.
 */
export async function purgeUnreferencedMedia(ctx: ServiceContext): Promise<MediaPurge> {
  const now = ctx.clock.now();
  const cutoff = new Date(now.getTime() - ctx.media.graceMs).toISOString();
  const referencedBy = new Map<string, Set<string>>();
  await scanMediaMentions(ctx.db, (userId, text) => {
    for (const hash of mediaHashesIn(text)) {
      let users = referencedBy.get(hash);
      if (users === undefined) referencedBy.set(hash, (users = new Set()));
      users.add(userId);
    }
  });
  let marked = 0;
  let released = 0;
  await forEachMediaOwnership(ctx.db, async (rows) => {
    const used = (o: MediaOwnership) => referencedBy.get(o.hash)?.has(o.userId) === true;
    const again = rows.filter((o) => used(o) && o.unreferencedSince !== null);
    const fresh = rows.filter((o) => !used(o) && o.unreferencedSince === null);
    const stale = rows.filter((o) => !used(o) && o.unreferencedSince !== null && o.unreferencedSince <= cutoff);
    if (again.length + fresh.length + stale.length === 0) return;
    await inTransaction(ctx.db, async (trx) => {
      await setUnreferencedSince(trx, again, null);
      await setUnreferencedSince(trx, fresh, now.toISOString());
      await deleteStaleOwnerships(trx, stale, cutoff);
    });
    marked += fresh.length;
    released += stale.length;
  });
  let removed = 0;
  for (const hash of await unownedMediaHashes(ctx.db, cutoff)) {
    if (referencedBy.has(hash)) continue;
    await deleteUnownedMediaBlob(ctx.db, hash);
    removed++;
  }
  return { marked, released, removed };
}
