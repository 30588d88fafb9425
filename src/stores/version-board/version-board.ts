// Where an instance learns the current version of a resource (a deck) without asking the
// database, so a read whose bytes it already holds (../body-cache.ts) needs no database round trip.
//
// With Redis (scale-out), every write publishes the new version once committed, before its
// response is sent, so a read on any instance that starts after a write's response sees that
// write. Published versions live VERSION_TTL_SECONDS: if an instance dies (or loses Redis) between
// committing and publishing, the others can serve the previous version for at most that long, the
// same bound as token revocation. Without Redis (one instance on the embedded store) the board is
// this process's memory (in-process.ts): the server is the only writer of decks on its file (the
// CLI writes users and tokens), and an entry is trusted for VERSION_TTL_SECONDS too, so even a
// write from outside the process is seen within that bound.

/** How long a published version is trusted before a read asks the database again. */
export const VERSION_TTL_SECONDS = 5;

export interface VersionBoard {
  /**
   * The shared key holding the resource's published version, for the call's admission to read in
   * the same round trip (../rate-limits/rate-limits.ts); null when versions are not shared.
   */
  keyOf(id: string): string | null;
  /** The version in that key's value, or null when none is known (the database decides). */
  parse(value: string | null): string | null;
  /**
   * The known version of `id`, given the value of its shared key as the admission read it (null
   * when there is none); null when none is known (the database decides).
   */
  versionOf(id: string, value: string | null): string | null;
  /**
   * Publishes a version read from or committed to the database. An older version never replaces
   * a newer one, so a read racing a write cannot bring back what the write replaced. Never
   * throws: a version not published only costs a database read.
   */
  publish(id: string, version: string): Promise<void>;
}

/** No shared board: every read asks the database. */
export const databaseOnlyVersions: VersionBoard = {
  keyOf: () => null,
  parse: () => null,
  versionOf: () => null,
  publish: async () => {},
};
