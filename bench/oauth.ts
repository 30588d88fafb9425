// `npx node bench/oauth.ts`: an API call with an OAuth access token against the same call with a
// personal access token (same server process, same endpoint, interleaved wrk rounds; goal: ratio
// at least 0.95), and the token endpoint's latency (refresh with rotation, and code exchange),
// p50 over sequential calls. The OAuth token is got the way a client gets it: sign-up on the web
// page, dynamic registration, the consent form, code exchange (openid-client).
import { performance } from 'node:perf_hooks';
import * as client from 'openid-client';
import { FormBrowser, INSECURE, loopbackApp, PASSWORD } from '../test/helpers/oauth.ts';
import { median, round } from './measure.ts';
import { cli, startFlashdeck } from './servers.ts';
import { compare } from './throughput.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const SAMPLES = Number(process.env.BENCH_OAUTH_SAMPLES ?? 200);

const server = await startFlashdeck('oauth', { kind: 'sqlite' });
const app = await loopbackApp();
try {
  // PUBLIC_URL is http://localhost:<port> (the default): the issuer clients must use.
  const origin = server.url.replace('127.0.0.1', 'localhost');
  const email = 'bench-oauth@example.com';
  const browser = new FormBrowser(origin);
  const signup = await (await browser.request('/signup')).text();
  await browser.follow('/signup', { form: { _csrf: FormBrowser.csrfOf(signup), email, password: PASSWORD } });
  const pat = await cli(server, ['tokens', 'create', '--user', email, '--name', 'bench', '--scopes', 'decks:read,decks:write,reviews:read,reviews:write']);
  const config = await client.dynamicClientRegistration(new URL(origin), {
    client_name: 'Bench', redirect_uris: ['http://127.0.0.1/callback'], token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
  }, client.None(), INSECURE);
  const resource = `${origin}/api/v1`;

  async function authorize(): Promise<{ callback: URL; verifier: string; state: string }> {
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: app.redirectUri, scope: 'decks:read decks:write reviews:read reviews:write', resource,
      code_challenge: await client.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
    });
    return { callback: await browser.authorize(url, email, 'allow'), verifier, state };
  }

  // The code exchange, alone (sign-in and consent happen before the clock starts).
  const exchanges: number[] = [];
  let tokens: client.TokenEndpointResponse | undefined;
  for (let i = 0; i < 30; i++) {
    const auth = await authorize();
    const started = performance.now();
    tokens = await client.authorizationCodeGrant(config, auth.callback, { pkceCodeVerifier: auth.verifier, expectedState: auth.state }, { resource });
    exchanges.push(performance.now() - started);
  }
  if (tokens === undefined) throw new Error('no tokens');
  const refreshes: number[] = [];
  let refreshToken = tokens.refresh_token ?? '';
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const next = await client.refreshTokenGrant(config, refreshToken, { resource });
    refreshes.push(performance.now() - started);
    refreshToken = next.refresh_token ?? '';
    tokens = next;
  }
  const access = tokens.access_token;
  const comparison = await compare('whoami, OAuth against PAT',
    { label: 'oauth', url: `${server.url}/api/v1/whoami`, headers: { authorization: `Bearer ${access}` }, servers: [server] },
    { label: 'pat', url: `${server.url}/api/v1/whoami`, headers: { authorization: `Bearer ${pat}` }, servers: [server] });
  const decks = await compare('GET /decks, OAuth against PAT',
    { label: 'oauth', url: `${server.url}/api/v1/decks`, headers: { authorization: `Bearer ${access}` }, servers: [server] },
    { label: 'pat', url: `${server.url}/api/v1/decks`, headers: { authorization: `Bearer ${pat}` }, servers: [server] });
  const figures = {
    whoami: comparison.median,
    listDecks: decks.median,
    tokenEndpointMs: {
      codeExchangeP50: round(median(exchanges), 2),
      refreshP50: round(median(refreshes), 2),
      refreshSamples: refreshes.length,
      codeSamples: exchanges.length,
    },
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await app.close();
  await server.stop();
}
log('done');
