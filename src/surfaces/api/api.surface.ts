// The integrations API under {base_url} = {PUBLIC_URL}/api/v1, as one encapsulated plugin owning
// everything a JSON API needs and no other surface should meet: its body parsers and checks (415,
// empty body), its validation, the error envelope, its not-found handler, CORS, the per-call policy
// on each route, Idempotency-Key, and its OpenAPI document. Routes come from the feature modules
// (modules/<feature>/*.routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import fp from 'fastify-plugin';
import type { ServiceContext } from '../../context.ts';
import type { Api, RouteModule } from '../http.ts';
import { ankiRoutes } from './routes/anki.ts';
import { cardsRoutes } from './routes/cards.ts';
import { deckImportRoutes } from './routes/deck-import.ts';
import { deckTrashRoutes } from './routes/deck-trash.ts';
import { searchRoutes } from './routes/search.ts';
import { publicDecksRoutes } from './routes/public-decks.ts';
import { decksRoutes } from './routes/decks.ts';
import { mediaRoutes } from './routes/media.ts';
import { OAUTH_SCOPES, type Scope } from '../../modules/identity/scopes.ts';
import { reviewsRoutes } from './routes/reviews.ts';
import { whoamiRoutes } from './routes/whoami.ts';
import { protectedResource, type Policy, type ProtectedResource } from '../../policy/policy.ts';
import { bodyAjv, queryAjv } from '../../validation.ts';
import { jsonErrorHandler } from '../errors.ts';
import { ROOT_PLUGIN } from '../root.ts';
import { registerApiContentTypes } from './content-types.ts';
import { registerApiCors } from './cors.ts';
import { bindIdempotentRoutes, idempotentReply } from './idempotency.ts';
import { openApiRoute, registerOpenApi } from './openapi.ts';
import { methodNotAllowed, registerHttpSemantics } from './http-semantics.ts';
import { decorateApiRequest } from './request.ts';
import { routePolicy } from './route-policy.ts';

export const API_PREFIX = '/api/v1';
export const API_PLUGIN = 'flashdeck-api';

const API_MODULES: RouteModule[] = [whoamiRoutes, decksRoutes, deckTrashRoutes, searchRoutes, publicDecksRoutes, cardsRoutes, deckImportRoutes, reviewsRoutes, mediaRoutes, ankiRoutes];

/** The API as an OAuth protected resource (RFC 9728): its metadata document and where it is served. */
export interface ApiResource {
  readonly resource: ProtectedResource;
  readonly documentPaths: readonly string[];
  readonly document: Readonly<Record<string, unknown>>;
}

export function apiResource(publicUrl: string): ApiResource {
  return {
    resource: protectedResource(`${publicUrl}${API_PREFIX}`, `${publicUrl}/.well-known/oauth-protected-resource`),
    documentPaths: ['/.well-known/oauth-protected-resource', `/.well-known/oauth-protected-resource${API_PREFIX}`],
    document: {
      resource: `${publicUrl}${API_PREFIX}`,
      // The service is its own authorization server (issuer PUBLIC_URL, RFC 8414 metadata at
      // /.well-known/oauth-authorization-server).
      authorization_servers: [publicUrl],
      // What a client may ask the authorization server for: the OAuth scopes (PATs carry more).
      scopes_supported: [...OAUTH_SCOPES],
      bearer_methods_supported: ['header'],
      resource_name: 'Flashdeck Integrations API',
      resource_documentation: `${publicUrl}${API_PREFIX}/docs`,
    },
  };
}

export interface ApiSurfaceOptions {
  ctx: ServiceContext;
  policy: Policy;
}

/** An API route as registered: what another surface (MCP) derives its tools from, so they cannot drift. */
export interface ApiRoute {
  readonly method: string;
  /** With the prefix: `/api/v1/decks/:deckId/cards` (the idempotency hash names it). */
  readonly url: string;
  readonly schema: Readonly<Record<string, unknown>>;
  readonly scope: Scope | null;
  /** A second scope the call needs too. */
  readonly also: Scope | null;
  readonly idempotency: string | null;
}

export interface ApiSurface {
  /** Register with `{ prefix: API_PREFIX }`. */
  readonly plugin: ReturnType<typeof fp<ApiSurfaceOptions>>;
  /** The OpenAPI document (once the app is ready). */
  readonly document: () => Record<string, unknown>;
  /** The token-authenticated routes by operationId (once the plugin is registered). */
  readonly routes: ReadonlyMap<string, ApiRoute>;
}

export function apiSurface(): ApiSurface {
  let scope: Api | null = null;
  const routes = new Map<string, ApiRoute>();
  const plugin = fp<ApiSurfaceOptions>(async (instance, { ctx, policy }) => {
    const api: Api = instance.withTypeProvider<TypeBoxTypeProvider>();
    scope = api;
    api.setValidatorCompiler(({ schema, httpPart }) => {
      // Bytes (an image, an Anki package) are checked by their route's service, not by a schema.
      if (httpPart === 'body' && (schema as { format?: unknown }).format === 'binary') return () => true;
      return (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema as object);
    });
    // Measured: plain JSON.stringify beats compiled response serializers on our payloads, and
    // mappers already produce exact shapes (responses are checked against the OpenAPI document in tests).
    api.setSerializerCompiler(() => (data) => JSON.stringify(data));
    api.setErrorHandler(jsonErrorHandler);
    // Unknown routes under {base_url} answer from this scope, so they carry the CORS headers too;
    // a known path under another method is 405 with Allow.
    // A call with a token is authenticated, admitted and recorded first (route-policy.ts).
    const callPolicy = routePolicy(policy, apiResource(ctx.publicUrl).resource);
    const unrouted = methodNotAllowed(api, callPolicy.unroutedCall);
    api.setNotFoundHandler(unrouted.handler);
    registerApiContentTypes(api);
    decorateApiRequest(api);
    // OPTIONS without Access-Control-Request-Method is answered like a preflight (204) too.
    registerApiCors(api, {
      methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
      allowedHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match'],
      exposedHeaders: ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'Idempotent-Replayed', 'X-Request-Id'],
      maxAge: 600,
    });
    await registerHttpSemantics(api);
    await registerOpenApi(api, ctx.publicUrl, API_PREFIX);
    callPolicy.bind(api);
    bindIdempotentRoutes(api);
    api.addHook('onRoute', (route) => {
      const operationId = (route.schema as { operationId?: unknown } | undefined)?.operationId;
      const auth = route.config?.auth;
      if (typeof operationId !== 'string' || auth === undefined || typeof route.method !== 'string') return;
      routes.set(operationId, {
        method: route.method, url: route.url, schema: route.schema as Record<string, unknown>,
        scope: auth.scope, also: auth.also ?? null, idempotency: route.config?.idempotency ?? null,
      });
    });
    const deps = { ctx, idempotent: idempotentReply(policy) };
    for (const module of API_MODULES) module(api, deps);
    openApiRoute(api);
  }, { name: API_PLUGIN, dependencies: [ROOT_PLUGIN], encapsulate: true, fastify: '5.x' });
  return {
    plugin,
    routes,
    document: () => {
      if (scope === null) throw new Error('the API surface is not registered');
      return scope.swagger() as unknown as Record<string, unknown>;
    },
  };
}
