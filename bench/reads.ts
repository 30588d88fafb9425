// Read throughput: GET /decks/{id} (the 250-card deck) and GET /whoami against the bare node:http
// ceiling sending the same bytes, and GET /decks/{id} on PostgreSQL + Redis against SQLite.
import { benchDeck } from './deck-fixture.ts';
import { timedRequest } from './measure.ts';
import {
  capture, cliUser, headBytes, postgresRedisStore, startCeiling, startFlashdeck,
  type Captured, type Ceiling, type Flashdeck, type FlashdeckOptions, type StoreChoice,
} from './servers.ts';
import { compare, type Comparison } from './throughput.ts';

export interface DeckServer {
  server: Flashdeck;
  token: string;
  userId: string;
  deckId: string;
  auth: Record<string, string>;
  deckPath: string;
}

export const API = '/api/v1';

/** A Flashdeck server with one user (made with the CLI) and the 250-card deck (imported over HTTP). */
export async function startDeckServer(name: string, store: StoreChoice = { kind: 'sqlite' }, options: FlashdeckOptions = {}): Promise<DeckServer> {
  const server = await startFlashdeck(name, store, options);
  try {
    const { userId, token } = await cliUser(server, `${name}@bench.example`);
    const auth = { authorization: `Bearer ${token}` };
    const imported = await timedRequest(`${server.url}${API}/decks/import`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(benchDeck()),
    });
    if (imported.status !== 201) throw new Error(`${name}: seed import failed: ${imported.status} ${imported.body.slice(0, 200)}`);
    const deckId = (JSON.parse(imported.body) as { deckId: string }).deckId;
    return { server, token, userId, deckId, auth, deckPath: `${API}/decks/${deckId}` };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

export interface CeilingFigures extends Comparison {
  path: string;
  bodyBytes: number;
  headBytes: number;
}

/** Fetches Flashdeck's responses for `paths` and starts a ceiling that sends the same bytes. */
export async function startCeilingFor(deck: DeckServer, paths: string[], nodeFlags: string[] = []): Promise<{ ceiling: Ceiling; real: Record<string, Captured> }> {
  const real: Record<string, Captured> = {};
  for (const p of paths) {
    const response = await capture(`${deck.server.url}${p}`, { headers: deck.auth });
    if (response.status !== 200) throw new Error(`GET ${p}: ${response.status} ${response.body.toString().slice(0, 200)}`);
    real[p] = response;
  }
  const ceiling = await startCeiling(real, nodeFlags);
  try {
    for (const p of paths) await ceiling.check(p, real[p]);
  } catch (error) {
    await ceiling.stop();
    throw error;
  }
  return { ceiling, real };
}

/** Flashdeck against the ceiling on one path, in interleaved rounds. */
export async function againstCeiling(name: string, deck: DeckServer, ceiling: Ceiling, path: string, real: Captured): Promise<CeilingFigures> {
  const comparison = await compare(name,
    { label: 'Flashdeck', url: `${deck.server.url}${path}`, headers: deck.auth, servers: [deck.server] },
    { label: 'node:http', url: `${ceiling.url}${path}`, servers: [ceiling] });
  return { path: path.replace(deck.deckId, '{deckId}'), bodyBytes: real.body.length, headBytes: headBytes(real.rawHeaders), ...comparison };
}

export interface PostgresFigures extends Comparison {
  skipped?: undefined;
}

/** GET /decks/{id}: one PostgreSQL + Redis instance (fresh schema and namespace) against SQLite. */
export async function postgresAgainstSqlite(urls: { databaseUrl: string; redisUrl: string }, sqlite: DeckServer): Promise<PostgresFigures> {
  const backing = postgresRedisStore(urls);
  let pg: DeckServer | null = null;
  try {
    pg = await startDeckServer('postgres-redis', backing.store);
    const [a, b] = await Promise.all([sqlite, pg].map((d) => capture(`${d.server.url}${d.deckPath}`, { headers: d.auth })));
    if (a?.status !== 200 || b?.status !== 200 || a.body.length !== b.body.length) {
      throw new Error(`the SQLite and PostgreSQL servers do not serve decks of the same size (${a?.body.length}, ${b?.body.length})`);
    }
    return await compare('postgres',
      { label: 'PostgreSQL + Redis', url: `${pg.server.url}${pg.deckPath}`, headers: pg.auth, servers: [pg.server] },
      { label: 'SQLite', url: `${sqlite.server.url}${sqlite.deckPath}`, headers: sqlite.auth, servers: [sqlite.server] });
  } finally {
    await pg?.server.stop();
    await backing.drop();
  }
}
