// An Anki package as a zip, read with yauzl and bounded before anything is unpacked: the entry
// count, each entry's and the total declared size, and each entry's compression ratio come from
// the central directory; yauzl then refuses an entry whose data unpacks to other than it declared.
import yauzl from 'yauzl';
import { AppError } from '../../errors.ts';

export const ZIP_LIMITS = Object.freeze({
  /** Entries in the archive. */
  entries: 20_000,
  /** Declared uncompressed bytes of all entries together. */
  totalBytes: 1024 * 1024 * 1024,
  /** Uncompressed bytes of any one entry (the collection is the largest). */
  collectionBytes: 256 * 1024 * 1024,
  /** Uncompressed to compressed, for an entry of more than `ratioFloorBytes`. */
  ratio: 200,
  ratioFloorBytes: 1024 * 1024,
});

export interface ZipEntryInfo {
  readonly name: string;
  readonly bytes: number;
}

export interface AnkiZip {
  /** Every entry by name. */
  readonly entries: ReadonlyMap<string, ZipEntryInfo>;
  /** The entry's bytes; ZIP_ENTRY_TOO_LARGE past `maxBytes` (checked before unpacking). */
  read(name: string, maxBytes: number): Promise<Buffer>;
  close(): void;
}

function invalid(message: string): AppError {
  return new AppError('ZIP_INVALID', `The package is not a readable zip file: ${message}`);
}

/** yauzl's refusals of an entry name (absolute, `..`, a backslash) are ours to name. */
function zipError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const unsafe = /^(?:invalid characters in fileName|absolute path|invalid relative path): (.*)$/s.exec(message);
  if (unsafe !== null) {
    return new AppError('ZIP_UNSAFE_PATH', `The zip entry "${unsafe[1].slice(0, 200)}" has an unsafe name (absolute, \`..\` or a backslash)`, { entry: unsafe[1].slice(0, 200) });
  }
  return invalid(message);
}

function openFile(path: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    yauzl.open(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true, strictFileNames: true }, (error, zip) => {
      if (error) reject(zipError(error));
      else resolve(zip);
    });
  });
}

function checkEntry(entry: yauzl.Entry): void {
  const name = entry.fileName;
  // Anki's entries are flat names (collection.anki21, media, 0, 1, ...): a directory part is not ours.
  if (name.includes('/') && !name.endsWith('/')) {
    throw new AppError('ZIP_UNSAFE_PATH', `The zip entry "${name.slice(0, 200)}" has a directory part; an Anki package has none`, { entry: name.slice(0, 200) });
  }
  if (entry.uncompressedSize > ZIP_LIMITS.collectionBytes) {
    throw new AppError('ZIP_ENTRY_TOO_LARGE', `The zip entry "${name.slice(0, 200)}" unpacks to ${entry.uncompressedSize} bytes; at most ${ZIP_LIMITS.collectionBytes} are read for one entry`, { entry: name.slice(0, 200) });
  }
  if (entry.uncompressedSize > ZIP_LIMITS.ratioFloorBytes && entry.uncompressedSize > ZIP_LIMITS.ratio * Math.max(entry.compressedSize, 1)) {
    throw new AppError('ZIP_RATIO_TOO_HIGH', `The zip entry "${name.slice(0, 200)}" is compressed ${Math.round(entry.uncompressedSize / Math.max(entry.compressedSize, 1))} to 1; at most ${ZIP_LIMITS.ratio} to 1 is read`, { entry: name.slice(0, 200) });
  }
}

/** Opens and checks a package: every bound is checked here, on the central directory alone. */
export async function openAnkiZip(path: string): Promise<AnkiZip> {
  const zip = await openFile(path);
  try {
    if (zip.entryCount > ZIP_LIMITS.entries) {
      throw new AppError('ZIP_TOO_MANY_ENTRIES', `The package has ${zip.entryCount} entries; at most ${ZIP_LIMITS.entries} are read`);
    }
    const entries = new Map<string, yauzl.Entry>();
    let total = 0;
    for (;;) {
      const entry = await new Promise<yauzl.Entry | null>((resolve, reject) => {
        const onEntry = (e: yauzl.Entry) => { cleanup(); resolve(e); };
        const onEnd = () => { cleanup(); resolve(null); };
        const onError = (e: unknown) => { cleanup(); reject(zipError(e)); };
        const cleanup = () => { zip.off('entry', onEntry).off('end', onEnd).off('error', onError); };
        zip.on('entry', onEntry).on('end', onEnd).on('error', onError);
        zip.readEntry();
      });
      if (entry === null) break;
      total += entry.uncompressedSize;
      if (total > ZIP_LIMITS.totalBytes) {
        throw new AppError('ZIP_TOO_LARGE', `The package's entries unpack to more than ${ZIP_LIMITS.totalBytes} bytes`);
      }
      checkEntry(entry);
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
    }
    return {
      entries: new Map([...entries].map(([name, e]) => [name, { name, bytes: e.uncompressedSize }])),
      read: (name, maxBytes) => readEntry(zip, entries, name, maxBytes),
      close: () => zip.close(),
    };
  } catch (error) {
    zip.close();
    throw error;
  }
}

async function readEntry(zip: yauzl.ZipFile, entries: Map<string, yauzl.Entry>, name: string, maxBytes: number): Promise<Buffer> {
  const entry = entries.get(name);
  if (entry === undefined) throw invalid(`no entry named ${name}`);
  if (entry.uncompressedSize > maxBytes) {
    throw new AppError('ZIP_ENTRY_TOO_LARGE', `The zip entry "${name.slice(0, 200)}" unpacks to ${entry.uncompressedSize} bytes; at most ${maxBytes} are read for it`, { entry: name.slice(0, 200) });
  }
  const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) => {
    zip.openReadStream(entry, (error, s) => (error ? reject(zipError(error)) : resolve(s)));
  });
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  } catch (error) {
    throw zipError(error);
  }
  return Buffer.concat(chunks);
}
