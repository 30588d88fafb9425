// buildApp(config): plugins, then modules. Never reads process.env.
import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { ServiceContext } from './context.ts';
import { migrateToLatest, openStore, type Store } from './db/database.ts';
import './fastify-augment.ts';
import { sendJson, type Api, type RouteModule } from './http.ts';
import { ActivityRecorder } from './modules/activity/activity-recorder.ts';
import { cardsRoutes } from './modules/cards/cards.routes.ts';
import { deckImportRoutes } from './modules/deck-import/deck-import.routes.ts';
import { DECK_BODY_CACHE_BYTES, DeckBodyCache } from './modules/decks/deck-body-cache.ts';
import { decksRoutes } from './modules/decks/decks.routes.ts';
import { purgeExpiredKeys } from './modules/idempotency/idempotency.service.ts';
import { reviewsRoutes } from './modules/reviews/reviews.routes.ts';
import { getOrCreateSecret } from './modules/system/settings.repository.ts';
import { systemRoutes } from './modules/system/system.routes.ts';
import { whoamiRoutes } from './modules/tokens/whoami.routes.ts';
import { createToken, type CreateTokenInput, type TokenSummary } from './modules/tokens/tokens.service.ts';
import { addUser } from './modules/users/users.service.ts';
import type { User } from './modules/users/users.repository.ts';
import { registerActivityLog } from './plugins/activity.ts';
import { registerAuth } from './plugins/auth.ts';
import { registerContentTypes } from './plugins/content-types.ts';
import { frameworkErrors, notFoundHandler, registerErrorHandling } from './plugins/error-handler.ts';
import { registerIdempotency } from './plugins/idempotency.ts';
import { API_PREFIX, registerOpenApi } from './plugins/openapi.ts';
import { createInProcessStores, createRedisStores, type SharedStores } from './plugins/stores.ts';
import { bodyAjv, queryAjv } from './validation.ts';

export interface AppOverrides {
  clock?: Clock;
  /** Send logs here (tests pass false to keep output clean). */
  logger?: boolean;
  /** Prefix of this app's Redis keys (tests give each server its own, to drop them after). */
  redisNamespace?: string;
  /** Routes added before the app is sealed (the benchmark's in-memory ceiling route). */
  extraRoutes?: (app: FastifyInstance) => void;
}

export interface FlashdeckApp extends FastifyInstance {
  services: ServiceContext;
  activity: ActivityRecorder;
  /** Operator actions (the CLI's, and tests' setup) on this app's store. */
  admin: {
    addUser(email: string): Promise<User>;
    createToken(input: CreateTokenInput): Promise<{ token: string; summary: TokenSummary }>;
  };
}

const API_MODULES: RouteModule[] = [whoamiRoutes, decksRoutes, cardsRoutes, deckImportRoutes, reviewsRoutes];

export async function buildApp(config: Config, overrides: AppOverrides = {}): Promise<FlashdeckApp> {
  const clock = overrides.clock ?? systemClock;
  const store: Store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
  let stores: SharedStores | null = null;
  try {
    await migrateToLatest(store.db);
    const hashKey = config.tokenHashKey ?? (await getOrCreateSecret(store.db, 'token_hash_key'));
    const cursorKey = await getOrCreateSecret(store.db, 'cursor_key');
    stores = config.redisUrl !== null
      ? await createRedisStores(config.redisUrl, { namespace: overrides.redisNamespace })
      : createInProcessStores();
    const services: ServiceContext = {
      db: store.db, clock, publicUrl: config.publicUrl, deckLimit: config.deckLimit, cursorKey,
      deckBodies: new DeckBodyCache(DECK_BODY_CACHE_BYTES),
      // Called only once serving: app exists by then.
      deckVersions: stores.deckVersions((error) => app.log.warn({ err: error }, 'deck version not published; other instances ask the database')),
    };

    const app = Fastify({
      logger: overrides.logger === false ? false : { level: config.logLevel },
      bodyLimit: config.bodyLimitBytes,
      trustProxy: config.trustProxy,
      genReqId: () => randomUUID(),
      // Per-request lines only at debug: the activity log already records every token call.
      logController: new LogController({ disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace' }),
      routerOptions: { ignoreTrailingSlash: true, maxParamLength: 500 },
      frameworkErrors,
      // While draining, a request already on an open connection is served (with Connection: close)
      // rather than refused with Fastify's own 503 body, which is not the error envelope.
      return503OnClosing: false,
    }).withTypeProvider<TypeBoxTypeProvider>();

    app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object));
    // Measured: plain JSON.stringify beats compiled response serializers on our payloads, and
    // mappers already produce exact shapes (responses are checked against the OpenAPI document in tests).
    app.setSerializerCompiler(() => (data) => JSON.stringify(data));
    app.decorateRequest('principal', null);
    app.decorateRequest('activityDeckId', null);
    app.decorateRequest('idempotency', null);
    app.decorateRequest('idempotencyStored', false);
    app.decorateRequest('peeked', null);
    app.addHook('onRequest', (request, reply, done) => {
      reply.header('X-Request-Id', request.id);
      done();
    });

    registerErrorHandling(app);
    registerContentTypes(app);
    await registerOpenApi(app, config.publicUrl);

    const activity = new ActivityRecorder(store.db, clock, { onError: (error) => app.log.error({ err: error }, 'activity log write failed') });
    const rateLimits = stores.rateLimits({
      perMinute: config.rateLimitPerMinute, perDay: config.rateLimitPerDay, failedAuthPerMinute: config.failedAuthPerMinute,
    });

    let openApiJson: string | undefined;
    await app.register(async (api: Api) => {
      await api.register(cors, {
        origin: '*',
        methods: ['GET', 'POST', 'PATCH', 'OPTIONS'],
        allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match'],
        exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'X-Request-Id'],
        maxAge: 600,
      });
      registerAuth(api, { db: store.db, clock, hashKey, publicUrl: config.publicUrl, rateLimits });
      registerIdempotency(api, store.db, clock);
      registerActivityLog(api, activity, clock);
      for (const module of API_MODULES) module(api, services);
      // Unknown routes under {base_url} answer from this scope, so they carry the CORS headers too.
      api.setNotFoundHandler(notFoundHandler);
      api.get('/openapi.json', {
        schema: {
          operationId: 'getOpenApiDocument',
          tags: ['meta'],
          summary: 'This OpenAPI 3.1 document (no token needed, not rate limited)',
          security: [],
          response: { 200: Type.Object({}, { additionalProperties: true, description: 'OpenAPI 3.1.0 document' }) },
        },
      }, async (_request, reply) => {
        // Not rate limited and the same for every caller: serialised once, on first use.
        openApiJson ??= JSON.stringify(app.swagger());
        return sendJson(reply, openApiJson);
      });
    }, { prefix: API_PREFIX });

    systemRoutes(app, { db: store.db, publicUrl: config.publicUrl, checks: stores.checks });
    overrides.extraRoutes?.(app);

    const purgeTimer = setInterval(() => void purgeExpiredKeys(store.db, clock).catch(() => {}), 3_600_000);
    purgeTimer.unref();
    app.addHook('onClose', async () => {
      clearInterval(purgeTimer);
      await activity.close();
      await stores?.close();
      await store.close();
    });
    await app.ready();
    const admin: FlashdeckApp['admin'] = {
      addUser: (email) => addUser(store.db, clock, email),
      createToken: (input) => createToken(store.db, clock, hashKey, input),
    };
    return Object.assign(app, { services, activity, admin }) as unknown as FlashdeckApp;
  } catch (error) {
    await stores?.close();
    await store.close();
    throw error;
  }
}
