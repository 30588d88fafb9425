// The few protobuf messages of Anki's newer formats that an import reads, declared for protobufjs
// (field numbers from Anki's .proto files): the package's `meta` entry, the zstd-compressed media
// map of the latest package version, and a notetype's kind in a schema-18 collection.
import protobuf from 'protobufjs';

const root = protobuf.Root.fromJSON({
  nested: {
    PackageMetadata: { fields: { version: { type: 'int32', id: 1 } } },
    MediaEntries: { fields: { entries: { rule: 'repeated', type: 'MediaEntry', id: 1 } } },
    MediaEntry: {
      fields: {
        name: { type: 'string', id: 1 },
        size: { type: 'uint32', id: 2 },
        sha1: { type: 'bytes', id: 3 },
        legacyZipFilename: { type: 'uint32', id: 255 },
      },
    },
    NotetypeConfig: { fields: { kind: { type: 'int32', id: 1 } } },
  },
});

/** PackageMetadata.Version: 3 is the latest (zstd collection, protobuf media map, zstd media). */
export const PACKAGE_VERSION_LATEST = 3;

export function packageVersion(bytes: Uint8Array): number {
  const message = root.lookupType('PackageMetadata').decode(bytes) as unknown as { version?: number };
  return message.version ?? 0;
}

/** Zip entry name ("0", "1", ...) -> the media file's name. */
export function mediaEntries(bytes: Uint8Array): Map<string, string> {
  const message = root.lookupType('MediaEntries').decode(bytes) as unknown as { entries?: { name?: string; legacyZipFilename?: number }[] };
  const out = new Map<string, string>();
  (message.entries ?? []).forEach((entry, index) => {
    if (typeof entry.name === 'string') out.set(String(entry.legacyZipFilename ?? index), entry.name);
  });
  return out;
}

/** NotetypeConfig.Kind: 1 is cloze. */
export function notetypeIsCloze(config: Uint8Array): boolean {
  const message = root.lookupType('NotetypeConfig').decode(config) as unknown as { kind?: number };
  return message.kind === 1;
}
