// Review-session figures for `npm run bench`: answer 250 cards in one session, one request at a
// time (p50/p99 per answer), then complete the 250-card session. The token needs decks:write (to
// import the deck it studies) and reviews:write; the server should not rate-limit it.
import http from 'node:http';
import { performance } from 'node:perf_hooks';

const CARDS = 250;
const WARMUP_CARDS = 30;
const RATINGS = ['good', 'again', 'good', 'easy', 'hard'] as const;

interface Reply {
  status: number;
  body: any;
}

/** Keep-alive JSON client over one socket, so each timing is one request, not a handshake. */
function client(baseUrl: string, token: string) {
  const root = baseUrl.replace(/\/+$/, '');
  const api = new URL(root.endsWith('/api/v1') ? root : `${root}/api/v1`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const call = (method: string, path: string, json?: unknown): Promise<Reply> => new Promise((resolve, reject) => {
    const payload = json === undefined ? undefined : JSON.stringify(json);
    const request = http.request({
      agent, method, host: api.hostname, port: api.port, path: `${api.pathname}${path}`,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
      },
    }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text === '' ? null : JSON.parse(text) });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(payload);
  });
  return { call, close: () => agent.destroy() };
}

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

const round2 = (n: number) => Math.round(n * 100) / 100;

function expect(reply: Reply, status: number, what: string): any {
  if (reply.status !== status) throw new Error(`${what}: ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
  return reply.body;
}

export async function benchReviews(baseUrl: string, token: string): Promise<{ answerP50Ms: number; answerP99Ms: number; completeMs: number }> {
  const { call, close } = client(baseUrl, token);
  try {
    const studyDeck = async (n: number, title: string) => {
      const cards = Array.from({ length: n }, (_, i) => ({
        front: `Card ${i + 1}: what does term ${i + 1} mean?`,
        back: `Term ${i + 1} is explained here, with a sentence or two of **markdown** so the card looks real.`,
      }));
      const imported = expect(await call('POST', '/decks/import', { deck: { title, lang: 'en' }, cards }), 201, 'deck import');
      return expect(await call('POST', '/reviews', { deckId: imported.deckId }), 201, 'session start') as { id: string; cards: string[] };
    };
    const answerAll = async (session: { id: string; cards: string[] }, timings: number[] | null) => {
      for (const [i, cardId] of session.cards.entries()) {
        const json = { cardId, rating: RATINGS[i % RATINGS.length], durationMs: 2000 + (i % 7) * 300 };
        const started = performance.now();
        const reply = await call('POST', `/reviews/${session.id}/answers`, json);
        timings?.push(performance.now() - started);
        expect(reply, 200, 'answer');
      }
    };

    // Warm the server's code paths (JIT, prepared statements) before timing anything.
    const warmup = await studyDeck(WARMUP_CARDS, 'Review bench warm-up');
    await answerAll(warmup, null);
    expect(await call('POST', `/reviews/${warmup.id}/complete`), 200, 'warm-up complete');

    const session = await studyDeck(CARDS, 'Review bench');
    if (session.cards.length !== CARDS) throw new Error(`expected a ${CARDS}-card queue, got ${session.cards.length}`);
    const timings: number[] = [];
    await answerAll(session, timings);
    const started = performance.now();
    const completed = expect(await call('POST', `/reviews/${session.id}/complete`), 200, 'complete');
    const completeMs = performance.now() - started;
    if (completed.stats?.answered !== CARDS) throw new Error(`complete counted ${completed.stats?.answered} answers, not ${CARDS}`);

    timings.sort((a, b) => a - b);
    return { answerP50Ms: round2(percentile(timings, 50)), answerP99Ms: round2(percentile(timings, 99)), completeMs: round2(completeMs) };
  } finally {
    close();
  }
}
