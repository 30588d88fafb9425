// The benchmark's server process: the real app (buildApp, the real store, every hook) plus one
// bare route, GET /bench/ceiling, that answers with bytes captured from a real deck read. Run as
// a child of bench/run.ts so the server and autocannon never share an event loop.
//
// BENCH_ROLE=deck: imports one 250-card deck and serves the ceiling for it.
// BENCH_ROLE=list BENCH_LIST_DECKS=N: bulk-seeds N decks for one user straight into the store.
// Either way it prints one line `BENCH_READY {port, token, deckId?}` once it listens.
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { newId } from '../src/ids.ts';
import { benchDeck, listDeckFields } from './deck-fixture.ts';

const role = process.env.BENCH_ROLE ?? 'deck';
const config = loadConfig(process.env);

let ceilingText = '';
let ceilingBytes = Buffer.alloc(0);
let ceilingHeaders: Record<string, string> = {};
// Set per response by Fastify or by the app's global hook, not part of the captured bytes.
const PER_RESPONSE = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'x-request-id']);

const app = await buildApp(config, {
  extraRoutes: (root) => {
    // The ceiling: the deck read's bytes and headers from memory, with no auth, store or hooks
    // of the API. As a Buffer (the fastest way to send bytes), and as a string, which Node must
    // encode to UTF-8 on every send.
    root.get('/bench/ceiling', { schema: { hide: true } }, (_request, reply) => {
      reply.headers(ceilingHeaders);
      return reply.send(ceilingBytes);
    });
    root.get('/bench/ceiling-string', { schema: { hide: true } }, (_request, reply) => {
      reply.headers(ceilingHeaders);
      return reply.send(ceilingText);
    });
  },
});

const email = 'bench@example.com';
const user = await app.admin.addUser(email);
const { token } = await app.admin.createToken({ email, name: 'bench', scopes: ['decks:read', 'decks:write', 'reviews:read', 'reviews:write'] });
const authorization = `Bearer ${token}`;
let deckId: string | undefined;

if (role === 'deck') {
  const imported = await app.inject({
    method: 'POST', url: '/api/v1/decks/import', headers: { authorization }, payload: benchDeck(),
  });
  if (imported.statusCode !== 201) throw new Error(`seed import failed: ${imported.statusCode} ${imported.body}`);
  deckId = (JSON.parse(imported.body) as { deckId: string }).deckId;
  const read = await app.inject({ method: 'GET', url: `/api/v1/decks/${deckId}`, headers: { authorization } });
  if (read.statusCode !== 200) throw new Error(`seed read failed: ${read.statusCode}`);
  ceilingText = read.body;
  ceilingBytes = Buffer.from(read.body);
  ceilingHeaders = Object.fromEntries(
    Object.entries(read.headers)
      .filter(([name, value]) => !PER_RESPONSE.has(name) && typeof value === 'string')
      .map(([name, value]) => [name, value as string]),
  );
} else if (role === 'list') {
  const count = Number(process.env.BENCH_LIST_DECKS ?? '100');
  // One transaction of multi-row inserts: 100,000 decks in a few seconds, where HTTP would take minutes.
  const start = Date.parse('2024-01-01T00:00:00.000Z');
  const BATCH = 500;
  await app.services.db.transaction().execute(async (trx) => {
    for (let i = 0; i < count; i += BATCH) {
      const rows = [];
      for (let j = i; j < Math.min(count, i + BATCH); j++) {
        const fields = listDeckFields(j);
        // Distinct, spread-out update times, so the keyset order is the realistic one.
        const at = new Date(start + j * 7_919).toISOString();
        rows.push({
          id: newId('dck'), user_id: user.id, title: fields.title, description: fields.description, lang: 'en',
          visibility: 'private', tags: JSON.stringify(fields.tags), thumbnail: null, card_count: fields.cardCount,
          created_at: at, updated_at: at,
        });
      }
      await trx.insertInto('decks').values(rows).execute();
    }
  });
} else {
  throw new Error(`unknown BENCH_ROLE ${role}`);
}

await app.listen({ port: config.port, host: config.host });
const address = app.server.address();
const port = typeof address === 'object' && address ? address.port : config.port;
process.stdout.write(`BENCH_READY ${JSON.stringify({ port, token, deckId })}\n`);

const stop = () => void app.close().then(() => process.exit(0), () => process.exit(1));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
