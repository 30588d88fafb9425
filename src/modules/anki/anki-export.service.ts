// GET /decks/{deckId}/apkg: a deck as an Anki package that Anki opens, with the deck's images.
// The collection is written to a temporary file (anki-collection-writer.ts, loaded by the first
// export) and zipped with yazl. Each note shows the card's sides as HTML and keeps the card whole, as
// JSON, in a field no template shows, so importing the package here gives the same deck back.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import yazl from 'yazl';
import type { ServiceContext } from '../../context.ts';
import { getDeckDetail } from '../decks/decks.service.ts';
import type { Actor } from '../identity/principal.ts';
import { IMAGE_TYPES } from '../media/image-probe.ts';
import { mediaReferencedBy } from '../media/media.service.ts';
import type { MediaBlob } from '../media/media.repository.ts';

export interface AnkiPackage {
  readonly fileName: string;
  readonly data: Buffer;
}

function zip(collection: Buffer, media: readonly MediaBlob[]): Promise<Buffer> {
  const archive = new yazl.ZipFile();
  archive.addBuffer(collection, 'collection.anki2');
  const names: Record<string, string> = {};
  media.forEach((blob, i) => {
    names[i] = `${blob.hash}.${IMAGE_TYPES[blob.contentType]}`;
    // Images are compressed already.
    archive.addBuffer(blob.data, String(i), { compress: false });
  });
  archive.addBuffer(Buffer.from(JSON.stringify(names)), 'media');
  archive.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    archive.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
    archive.outputStream.on('error', reject);
    archive.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

/** The deck as a package, with a file name made of its title. */
export async function exportDeckApkg(ctx: ServiceContext, actor: Actor, input: { deckId: string }): Promise<AnkiPackage> {
  const deck = await getDeckDetail(ctx, actor, input);
  const media = await mediaReferencedBy(ctx, [...deck.cards.map((c) => JSON.stringify(c)), deck.thumbnail ?? '']);
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flashdeck-export-'));
  try {
    const file = path.join(workDir, 'collection.anki2');
    const { writeCollection } = await import('./anki-collection-writer.ts');
    writeCollection(file, deck, ctx.clock.now().getTime());
    const data = await zip(await fs.readFile(file), media);
    const base = deck.title.replace(/[^\p{L}\p{N} _-]+/gu, '').replace(/\s+/g, ' ').trim().slice(0, 80) || 'deck';
    return { fileName: `${base}.apkg`, data };
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}
