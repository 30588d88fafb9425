// Deck versions in Redis for every instance (see src/modules/decks/deck-versions.ts). The value
// is "<epoch ms> <version>": the script orders versions by the number, which does not depend on
// the server's collation the way comparing the strings in Lua would.
import type { Redis } from 'ioredis';
import { DECK_VERSION_TTL_SECONDS, type DeckVersionBoard } from '../modules/decks/deck-versions.ts';

// KEYS: the deck's version key. ARGV: the version's epoch ms, the value, the lifetime (s).
const PUBLISH = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(string.match(current, '^%d+')) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
`;

interface ScriptedRedis {
  flashdeckPublishVersion(key: string, ms: number, value: string, lifetime: number): Promise<number>;
}

export class RedisDeckVersions implements DeckVersionBoard {
  readonly #client: ScriptedRedis;
  readonly #namespace: string;
  readonly #onError: (error: unknown) => void;

  constructor(client: Redis, namespace: string, onError: (error: unknown) => void) {
    client.defineCommand('flashdeckPublishVersion', { numberOfKeys: 1, lua: PUBLISH });
    this.#client = client as unknown as ScriptedRedis;
    this.#namespace = namespace;
    this.#onError = onError;
  }

  keyOf(deckId: string): string {
    return `deck:v:${deckId}`;
  }

  parse(value: string | null): string | null {
    if (value === null) return null;
    const space = value.indexOf(' ');
    return space < 0 ? null : value.slice(space + 1);
  }

  async publish(deckId: string, version: string): Promise<void> {
    const ms = Date.parse(version);
    try {
      await this.#client.flashdeckPublishVersion(this.#namespace + this.keyOf(deckId), ms, `${ms} ${version}`, DECK_VERSION_TTL_SECONDS);
    } catch (error) {
      this.#onError(error);
    }
  }
}
