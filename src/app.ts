// buildApp(config): the stores, the services' context, the per-call policy, then the surfaces.
// Never reads process.env.
import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { lazyChildLogger } from './lazy-logger.ts';
import type { ServiceContext } from './context.ts';
import { migrateToLatest, openStore, type Store } from './db/database.ts';
import { ActivityRecorder } from './modules/activity/activity-recorder.ts';
import type { TokenVerifier } from './modules/identity/verifier.ts';
import { purgeExpiredKeys } from './modules/idempotency/idempotency.service.ts';
import type { MetadataFetchOptions } from './modules/oauth/metadata-fetch.ts';
import { purgeExpiredOauth } from './modules/oauth/oauth.service.ts';
import { oauthVerifier } from './modules/oauth/oauth-verifier.ts';
import { oauthSigningKey } from './modules/oauth/oauth-provider.service.ts';
import { purgeUnreferencedMedia } from './modules/media/media.service.ts';
import { purgeIdleSessions } from './modules/sessions/sessions.service.ts';
import { purgeTrash } from './modules/decks/deck-trash.service.ts';
import { systemPlugin } from './surfaces/system/system.surface.ts';
import { patVerifier } from './modules/tokens/pat-verifier.ts';
import { createToken, type CreateTokenInput, type TokenSummary } from './modules/tokens/tokens.service.ts';
import { addUser, getUserByEmail, type User } from './modules/users/users.service.ts';
import { CARD_WRITE_LIMITS, Policy } from './policy/policy.ts';
import { createServiceContext, mediaSettings } from './services.ts';
import { openSharedStores, type SharedStores } from './stores/shared-stores.ts';
import { API_PREFIX, apiResource, apiSurface } from './surfaces/api/api.surface.ts';
import { clientErrors } from './surfaces/connections.ts';
import { frameworkErrors } from './surfaces/errors.ts';
import { oauthSurface } from './surfaces/oauth/oauth.surface.ts';
import { AuthorizationServer, OAUTH_PREFIX } from './surfaces/authorization-server.ts';
import { MCP_PREFIX, mcpResource, mcpSurface } from './surfaces/mcp/mcp.surface.ts';
import { MEDIA_PREFIX, mediaSurface } from './surfaces/media/media.surface.ts';
import { rootPlugin } from './surfaces/root.ts';
import { webSurface } from './surfaces/web/web.surface.ts';

export interface AppOverrides {
  clock?: Clock;
  /** Send logs here (tests pass false to keep output clean). */
  logger?: boolean;
  /** Prefix of this app's Redis keys (tests give each server its own, to drop them after). */
  redisNamespace?: string;
  /** Routes or scopes added before the app is sealed (the benchmark's ceiling route, tests' scopes). */
  extraRoutes?: (app: FastifyInstance) => void;
  /** Verifiers asked after the personal-access-token one, in order (a test's own token shape). */
  verifiers?: (ctx: ServiceContext) => TokenVerifier[];
  /** How the authorization server fetches client ID metadata documents (tests inject a fetcher). */
  oauthFetch?: MetadataFetchOptions;
}

export interface FlashdeckApp extends FastifyInstance {
  services: ServiceContext;
  policy: Policy;
  activity: ActivityRecorder;
  /** The OAuth authorization server (oidc-provider, made on first use). */
  oauth: AuthorizationServer;
  /** The API's OpenAPI document. */
  apiDocument(): Record<string, unknown>;
  /**
   * Removes what has expired (the trash after 30 days, idempotency keys, OAuth records, idle
   * sessions, old activity, unreferenced media). Runs every hour, and once when the server starts.
   */
  purgeExpired(): Promise<void>;
  /** Operator actions (the CLI's, and tests' setup) on this app's store. */
  admin: {
    addUser(email: string): Promise<User>;
    createToken(input: CreateTokenInput & { email: string }): Promise<{ token: string; summary: TokenSummary }>;
  };
}

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FlashdeckApp> {
  const store: Store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  let shared: SharedStores | null = null;
  try {
    shared = await openSharedStores(config.redisUrl, { namespace: overrides.redisNamespace });
    return await assemble(config, overrides, store, shared);
  } catch (error) {
    await shared?.close();
    await store.close();
    throw error;
  }
}

async function assemble(config: Config, overrides: AppOverrides, store: Store, shared: SharedStores): Promise<FlashdeckApp> {
  const clock = overrides.clock ?? systemClock;
  await migrateToLatest(store.db);
  const services = await createServiceContext({
    db: store.db, clock, publicUrl: config.publicUrl, deckLimit: config.deckLimit, tokenHashKey: config.tokenHashKey,
    hashing: config.hashing,
    media: mediaSettings(config),
    // Called only once serving: app exists by then.
    deckVersions: shared.versionBoard('deck', (error) => app.log.warn({ err: error }, 'deck version not published; other instances ask the database')),
  });

  const app = Fastify({
    logger: overrides.logger === false ? false : { level: config.logLevel },
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    genReqId: () => randomUUID(),
    // Per-request lines only at debug: the activity log already records every token call.
    logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
    childLoggerFactory: lazyChildLogger,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
    frameworkErrors,
    // While draining, a request already on an open connection is served (with Connection: close)
    // rather than refused with Fastify's own 503 body, which is not the error envelope.
    return503OnClosing: false,
    // Timeouts (docs/deployment.md): a slow mobile client finishes; a client that dribbles its
    // headers or body, or sits idle, is closed (408 in the envelope when it is mid-request).
    connectionTimeout: config.timeouts.idleMs,
    requestTimeout: config.timeouts.requestMs,
    keepAliveTimeout: config.timeouts.keepAliveMs,
    http: {
      headersTimeout: config.timeouts.headersMs,
      // How often Node checks the two timeouts above (default 30 s, which would double them).
      connectionsCheckingInterval: Math.max(100, Math.min(5_000, Math.floor(config.timeouts.headersMs / 10))),
    },
    clientErrorHandler: clientErrors,
  });

  const activity = new ActivityRecorder(store.db, clock, { onError: (error) => app.log.error({ err: error }, 'activity log write failed') });
  const policy = new Policy({
    ctx: services,
    verifiers: [patVerifier(services), oauthVerifier(services), ...(overrides.verifiers?.(services) ?? [])],
    rateLimits: shared.rateLimits({ failedAuthPerMinute: config.failedAuthPerMinute }),
    tokenLimits: { perMinute: config.rateLimitPerMinute, perDay: config.rateLimitPerDay },
    cardWriteLimits: CARD_WRITE_LIMITS,
    activity,
    passwordAttempts: {
      signInPerAccount: config.signInAttemptsPerMinute,
      signInPerAddress: config.failedAuthPerMinute,
      signUpPerAddress: config.signUpAttemptsPerHour,
    },
  });

  const oauth = new AuthorizationServer(async () => {
    const { createProvider } = await import('./surfaces/oauth/provider.ts');
    const provider = createProvider(services, {
      signingKey: await oauthSigningKey(services),
      // DECISIONS: a token is bound to the API or to the MCP endpoint, whichever it was asked for.
      resources: [apiResource(config.publicUrl).resource.resource, `${config.publicUrl}/mcp`], trustProxy: config.trustProxy, fetch: overrides.oauthFetch });
    // oidc-provider renders its own 500s (server_error, no detail); the cause goes to the log.
    provider.on('server_error', (_c, error) => app.log.error({ err: error }, 'authorization server error'));
    return provider;
  }, (error) => app.log.error({ err: error }, 'authorization server could not be made'));

  await app.register(rootPlugin, { lingerMs: config.timeouts.lingerMs });
  const api = apiSurface();
  await app.register(api.plugin, { prefix: API_PREFIX, ctx: services, policy });
  await app.register(oauthSurface, {
    prefix: OAUTH_PREFIX, server: oauth, policy,
    registrationLimits: { perMinute: config.oauthRegistrationsPerMinute, perDay: config.oauthRegistrationsPerDay },
  });
  await app.register(mcpSurface, { prefix: MCP_PREFIX, ctx: services, policy, apiRoutes: api.routes, allowedOrigins: config.mcpAllowedOrigins });
  await app.register(mediaSurface, { prefix: MEDIA_PREFIX, ctx: services });
  // Pages at the root of the site: its HTML 404 answers every path outside the prefixed surfaces.
  await app.register(webSurface, { prefix: '/', ctx: services, policy, config, oauth });
  await app.register(systemPlugin, {
    ctx: services, checks: shared.checks, resources: [apiResource(config.publicUrl), mcpResource(config.publicUrl)],
    authorizationServer: () => oauth.handler(),
  });
  overrides.extraRoutes?.(app);

  const purgeExpired = async (): Promise<void> => {
    await Promise.all([
      purgeExpiredKeys(services).catch(() => {}),
      purgeExpiredOauth(services).catch(() => {}),
      purgeIdleSessions(services).catch(() => {}),
      activity.purge(),
      purgeTrash(services).catch((error: unknown) => { app.log.error({ err: error }, 'trash purge failed'); }),
      purgeUnreferencedMedia(services).catch((error: unknown) => { app.log.error({ err: error }, 'media purge failed'); }),
    ]);
  };
  const purgeTimer = setInterval(() => void purgeExpired(), 3_600_000);
  purgeTimer.unref();
  app.addHook('onClose', async () => {
    clearInterval(purgeTimer);
    await activity.close();
    await shared.close();
    await store.close();
  });
  await app.ready();
  const admin: FlashdeckApp['admin'] = {
    addUser: (email) => addUser(services, { email }),
    createToken: async ({ email, ...input }) => {
      const user = await getUserByEmail(services, { email });
      return createToken(services, { userId: user.id }, input);
    },
  };
  const built: FlashdeckApp = Object.assign(app, { services, policy, activity, oauth, admin, apiDocument: api.document, purgeExpired });
  return built;
}
