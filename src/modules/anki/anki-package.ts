// An Anki package (.apkg / .colpkg) read whole into decks of card inputs and the images they use:
// the zip bounded (anki-zip.ts), the collection (zstd for anki21b, Node's own zlib) read from a
// temporary file (anki-collection.ts), its notes mapped (anki-notes.ts), images checked and hashed
// as an upload's are. Runs in a worker (anki-worker.ts); writes nothing but its temporary file.
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { AppError } from '../../errors.ts';
import { MAX_CARDS_PER_DECK, type CardInput, type DeckMetaInput, type ImportWarning } from '../decks/decks.schemas.ts';
import { htmlText } from '../rendering/html-side.ts';
import { MAX_IMAGE_BYTES } from '../media/image-probe.ts';
import { mediaHashesIn, mediaUrl } from '../media/media-address.ts';
import { prepareImage, type PreparedImage } from '../media/media.service.ts';
import { readAnkiCollection, type AnkiNote } from './anki-collection.ts';
import { NoteMapper, ownDeckMeta, type ImageRef } from './anki-notes.ts';
import { PACKAGE_VERSION_LATEST, mediaEntries, packageVersion } from './anki-protobuf.ts';
import { ZIP_LIMITS, openAnkiZip, type AnkiZip } from './anki-zip.ts';

const zstdDecompress = promisify(zlib.zstdDecompress);

export interface PackageRequest {
  /** The package file. */
  readonly file: string;
  /** A folder of the caller's for the collection (removed by the caller). */
  readonly workDir: string;
  /** `?deck=`: one Anki deck by name or id; null for every deck. */
  readonly deck: string | null;
}

export interface PackageDeck {
  readonly meta: DeckMetaInput;
  readonly cards: CardInput[];
  readonly warnings: ImportWarning[];
}

export interface ParsedPackage {
  readonly decks: PackageDeck[];
  readonly images: PreparedImage[];
  readonly warnings: ImportWarning[];
}

/** Collections in the order Anki prefers them: the newest format a package carries wins. */
const COLLECTIONS = ['collection.anki21b', 'collection.anki21', 'collection.anki2'] as const;
const DESCRIPTION_CHARS = 5000;
const TITLE_CHARS = 200;

async function unzstd(bytes: Buffer, maxOutputLength: number): Promise<Buffer> {
  return zstdDecompress(bytes, { maxOutputLength });
}

async function readCollectionFile(zip: AnkiZip, workDir: string): Promise<string> {
  const name = COLLECTIONS.find((n) => zip.entries.has(n));
  if (name === undefined) throw new AppError('APKG_NO_COLLECTION', 'The package holds no Anki collection (collection.anki21b, collection.anki21 or collection.anki2)');
  let bytes = await zip.read(name, ZIP_LIMITS.collectionBytes);
  if (name === 'collection.anki21b') {
    try {
      bytes = await unzstd(bytes, ZIP_LIMITS.collectionBytes);
    } catch {
      throw new AppError('APKG_NOT_SQLITE', 'The collection.anki21b entry is not a zstd frame of at most 256 MiB');
    }
  }
  const file = path.join(workDir, 'collection.sqlite');
  await fs.writeFile(file, bytes);
  return file;
}

/** Media file name -> zip entry name. */
async function mediaMap(zip: AnkiZip, latest: boolean): Promise<Map<string, string>> {
  if (!zip.entries.has('media')) return new Map();
  const bytes = await zip.read('media', 64 * 1024 * 1024);
  const byName = new Map<string, string>();
  try {
    if (latest) {
      for (const [entry, name] of mediaEntries(await unzstd(bytes, 64 * 1024 * 1024))) byName.set(name, entry);
    } else {
      const map: unknown = JSON.parse(bytes.toString('utf8'));
      if (typeof map === 'object' && map !== null) {
        for (const [entry, name] of Object.entries(map)) if (typeof name === 'string') byName.set(name, entry);
      }
    }
  } catch {
    throw new AppError('APKG_SCHEMA_INVALID', "The package's media list cannot be read", { table: 'media' });
  }
  return byName;
}

class Images {
  readonly prepared = new Map<string, PreparedImage>();
  readonly #byName = new Map<string, Promise<ImageRef | { warning: string }>>();
  readonly #zip: AnkiZip;
  readonly #entries: Map<string, string>;
  readonly #latest: boolean;

  constructor(zip: AnkiZip, entries: Map<string, string>, latest: boolean) {
    this.#zip = zip;
    this.#entries = entries;
    this.#latest = latest;
  }

  has(name: string): boolean {
    return this.#entries.has(name);
  }

  resolve = (src: string): Promise<ImageRef | { warning: string }> => {
    // Anki writes file names in src, percent-encoded by some versions.
    let name = src;
    try {
      name = decodeURIComponent(src);
    } catch { /* the name as written */ }
    let pending = this.#byName.get(name);
    if (pending === undefined) {
      pending = this.#load(name);
      this.#byName.set(name, pending);
    }
    return pending;
  };

  async #load(name: string): Promise<ImageRef | { warning: string }> {
    const entry = this.#entries.get(name);
    if (entry === undefined || !this.#zip.entries.has(entry)) return { warning: 'it is not in the package' };
    const stored = this.#zip.entries.get(entry);
    if (stored !== undefined && stored.bytes > (this.#latest ? ZIP_LIMITS.collectionBytes : MAX_IMAGE_BYTES)) {
      return { warning: `it is larger than ${MAX_IMAGE_BYTES} bytes` };
    }
    try {
      let data = await this.#zip.read(entry, this.#latest ? ZIP_LIMITS.collectionBytes : MAX_IMAGE_BYTES);
      if (this.#latest) data = await unzstd(data, MAX_IMAGE_BYTES);
      const image = prepareImage(data);
      this.prepared.set(image.hash, image);
      return { url: mediaUrl(image.hash, image.facts.contentType) };
    } catch (error) {
      if (error instanceof AppError) return { warning: `${error.code}: ${error.message}` };
      return { warning: `it cannot be read (larger than ${MAX_IMAGE_BYTES} bytes, or corrupt)` };
    }
  }
}

function deckChosen(decks: ReadonlyMap<number, { name: string }>, wanted: string): number {
  for (const [id, deck] of decks) if (String(id) === wanted || deck.name === wanted) return id;
  const lower = wanted.toLowerCase();
  for (const [id, deck] of decks) if (deck.name.toLowerCase() === lower) return id;
  throw new AppError('APKG_DECK_NOT_FOUND', `No Anki deck in the package is named or numbered "${wanted.slice(0, 200)}"`, { deck: wanted.slice(0, 200) });
}

/** Our own export names its images `<sha256>.<ext>`: a card it wrote refers to them by URL. */
async function ownImages(cards: readonly CardInput[], images: Images): Promise<void> {
  const hashes = new Set<string>();
  for (const card of cards) mediaHashesIn(JSON.stringify(card), hashes);
  for (const hash of hashes) {
    for (const ext of ['png', 'jpg', 'gif', 'webp']) {
      if (images.has(`${hash}.${ext}`)) await images.resolve(`${hash}.${ext}`);
    }
  }
}

export async function parseAnkiPackage(request: PackageRequest): Promise<ParsedPackage> {
  const zip = await openAnkiZip(request.file);
  try {
    const latest = zip.entries.has('meta') && packageVersionOf(await zip.read('meta', 1024)) >= PACKAGE_VERSION_LATEST;
    const collection = readAnkiCollection(await readCollectionFile(zip, request.workDir));
    const images = new Images(zip, await mediaMap(zip, latest), latest);
    const mapper = new NoteMapper(collection, images.resolve);
    const only = request.deck === null ? null : deckChosen(collection.decks, request.deck);
    const notesByDeck = new Map<number, AnkiNote[]>();
    for (const note of collection.notes) {
      if (only !== null && note.deckId !== only) continue;
      const list = notesByDeck.get(note.deckId) ?? [];
      list.push(note);
      notesByDeck.set(note.deckId, list);
    }
    const warnings: ImportWarning[] = [];
    const decks: PackageDeck[] = [];
    for (const [deckId, notes] of notesByDeck) {
      const anki = collection.decks.get(deckId) ?? { name: `Anki deck ${deckId}`, description: null };
      const cards: CardInput[] = [];
      const cardWarnings: ImportWarning[] = [];
      for (const note of notes) {
        const mapped = await mapper.cards(note, cards.length);
        cards.push(...mapped.cards);
        cardWarnings.push(...mapped.warnings);
      }
      if (cards.length === 0) continue;
      await ownImages(cards, images);
      const own = ownDeckMeta(anki.description);
      const description = anki.description === null ? null : htmlText(anki.description).trim().slice(0, DESCRIPTION_CHARS) || null;
      const meta: DeckMetaInput = own ?? { title: anki.name.slice(0, TITLE_CHARS) || `Anki deck ${deckId}`, description };
      const parts = Math.ceil(cards.length / MAX_CARDS_PER_DECK);
      if (parts > 1) {
        warnings.push({ code: 'DECK_SPLIT', message: `The Anki deck "${anki.name.slice(0, 200)}" has ${cards.length} cards; a deck holds at most ${MAX_CARDS_PER_DECK}, so it became ${parts} decks` });
      }
      for (let part = 0; part < parts; part++) {
        const from = part * MAX_CARDS_PER_DECK;
        const title = parts === 1 ? meta.title : `${meta.title.slice(0, TITLE_CHARS - 12)} (${part + 1}/${parts})`;
        decks.push({
          meta: { ...meta, title },
          cards: cards.slice(from, from + MAX_CARDS_PER_DECK),
          warnings: cardWarnings.filter((w) => (w.cardIndex ?? 0) >= from && (w.cardIndex ?? 0) < from + MAX_CARDS_PER_DECK)
            .map((w) => (w.cardIndex === undefined ? w : { ...w, cardIndex: w.cardIndex - from })),
        });
      }
    }
    if (decks.length === 0) throw new AppError('APKG_EMPTY', 'The package has no note that makes a card');
    return { decks, images: [...images.prepared.values()], warnings };
  } finally {
    zip.close();
  }
}

function packageVersionOf(bytes: Buffer): number {
  try {
    return packageVersion(bytes);
  } catch {
    throw new AppError('APKG_SCHEMA_INVALID', "The package's meta entry cannot be read", { table: 'meta' });
  }
}
