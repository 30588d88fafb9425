// Versions in Redis for every instance (see version-board.ts). The value
// is "<epoch ms> <version>": the script orders versions by the number, which does not depend on
// the server's collation the way comparing the strings in Lua would.
import type { Redis } from 'ioredis';
import { VERSION_TTL_SECONDS, type VersionBoard } from './version-board.ts';

// KEYS: the resource's version key. ARGV: the version's epoch ms, the value, the lifetime (s).
const PUBLISH = `
local current = redis.call('GET', KEYS[1])
if current and tonumber(string.match(current, '^%d+')) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
return 1
`;

interface ScriptedRedis {
  flashdeckPublishVersion(key: string, ms: number, value: string, lifetime: number): Promise<number>;
}

export class RedisVersionBoard implements VersionBoard {
  readonly #client: ScriptedRedis;
  readonly #namespace: string;
  readonly #kind: string;
  readonly #onError: (error: unknown) => void;

  /** `kind` names what the ids are (`deck`): keys are `<kind>:v:<id>`. */
  constructor(client: Redis, namespace: string, kind: string, onError: (error: unknown) => void) {
    client.defineCommand('flashdeckPublishVersion', { numberOfKeys: 1, lua: PUBLISH });
    this.#client = client as unknown as ScriptedRedis;
    this.#namespace = namespace;
    this.#kind = kind;
    this.#onError = onError;
  }

  keyOf(id: string): string {
    return `${this.#kind}:v:${id}`;
  }

  parse(value: string | null): string | null {
    if (value === null) return null;
    const space = value.indexOf(' ');
    return space < 0 ? null : value.slice(space + 1);
  }

  versionOf(_id: string, value: string | null): string | null {
    return this.parse(value);
  }

  async publish(id: string, version: string): Promise<void> {
    const ms = Date.parse(version);
    try {
      await this.#client.flashdeckPublishVersion(this.#namespace + this.keyOf(id), ms, `${ms} ${version}`, VERSION_TTL_SECONDS);
    } catch (error) {
      this.#onError(error);
    }
  }
}
