// `npx node bench/mcp-oauth.ts`: how long a new agent waits from the MCP endpoint's 401 to its
// first successful tool call through the official SDK's OAuth flow, without the person's part
// (issue 22's figure). Each round is a new agent: the SDK's client meets the 401, reads the
// protected-resource and authorization-server metadata, registers, and hands over the
// authorization URL; the person (a form client already signed in, standing in for the click) allows
// it; the SDK exchanges the code, reconnects, and calls `whoami`. The person's part, from the URL
// handed over to the code back at the redirect, is taken out.
import { performance } from 'node:perf_hooks';
import { FormBrowser, loopbackApp, PASSWORD } from '../test/helpers/oauth.ts';
import { connectWithOauth, MemoryOauthProvider } from '../test/helpers/mcp-oauth.ts';
import { median, percentile, round } from './measure.ts';
import { startFlashdeck } from './servers.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const ROUNDS = Number(process.env.BENCH_MCP_OAUTH_ROUNDS ?? 30);

const server = await startFlashdeck('mcp-oauth', { kind: 'sqlite' }, { env: { OAUTH_REGISTRATIONS_PER_MINUTE: '1000000', OAUTH_REGISTRATIONS_PER_DAY: '1000000' } });
const app = await loopbackApp();
try {
  // PUBLIC_URL is http://localhost:<port> (the default): the issuer and the resource clients use.
  const origin = server.url.replace('127.0.0.1', 'localhost');
  const email = 'bench-mcp-oauth@example.com';
  const person = new FormBrowser(origin);
  const signup = await (await person.request('/signup')).text();
  await person.follow('/signup', { form: { _csrf: FormBrowser.csrfOf(signup), email, password: PASSWORD } });

  const rows: { total: number; person: number; untilUrl: number; afterCode: number; firstCall: number }[] = [];
  for (let round = 0; round < ROUNDS + 3; round++) {
    const provider = new MemoryOauthProvider(`http://localhost:${app.port}/callback`, { client_name: `Bench agent ${round}` });
    const { client, times } = await connectWithOauth(`${origin}/mcp`, provider, (url) => person.authorize(url, email, 'allow'));
    const result = await client.callTool({ name: 'whoami', arguments: {} });
    const called = performance.now();
    await client.close();
    if (result.isError === true) throw new Error(`whoami failed: ${JSON.stringify(result.content)}`);
    // The first three rounds warm the server up (the provider is made on first use).
    if (round < 3) continue;
    const personMs = times.codeBack - times.sentToPerson;
    rows.push({
      total: called - times.unauthorized - personMs,
      person: personMs,
      untilUrl: times.sentToPerson - times.unauthorized,
      afterCode: times.connected - times.codeBack,
      firstCall: called - times.connected,
    });
    log(`round ${round - 2}: ${round2(called - times.unauthorized - personMs)} ms without the person (person ${round2(personMs)} ms)`);
  }
  const of = (key: keyof (typeof rows)[number]) => rows.map((r) => r[key]);
  const figures = {
    rounds: rows.length,
    fromUnauthorizedToFirstToolCallMs: {
      p50: round2(median(of('total'))), p90: round2(percentile(of('total'), 90)), min: round2(Math.min(...of('total'))), max: round2(Math.max(...of('total'))),
    },
    partsP50Ms: {
      discoveryRegistrationAndUrl: round2(median(of('untilUrl'))),
      codeExchangeAndReconnect: round2(median(of('afterCode'))),
      firstToolCall: round2(median(of('firstCall'))),
    },
    personExcludedP50Ms: round2(median(of('person'))),
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await app.close();
  await server.stop();
}
log('done');

function round2(value: number): number {
  return round(value, 1);
}
