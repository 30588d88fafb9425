// The authorization server's endpoints under /oauth/ (DECISIONS "OAuth 2.1"), as one encapsulated
// plugin: oidc-provider answers them (its own errors, in OAuth's shape), and this scope owns only
// what reaches it first: body parsing (form bodies and, for registration, JSON, guarded against the
// V8 backslash-key bug before any JSON.parse) and the error of a body that never got through.
// The sign-in and consent pages are the web surface's (src/surfaces/web/pages/oauth.pages.ts).
import type { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import secureJsonParse from 'secure-json-parse';
import { BACKSLASH_KEY } from '../../validation.ts';
import { ROOT_PLUGIN } from '../root.ts';
import type { AuthorizationServer } from './authorization-server.ts';

export const OAUTH_PLUGIN = 'flashdeck-oauth';

/** oidc-provider's own limit for a request body. */
const BODY_LIMIT = 56 * 1024;

class OauthBodyError extends Error {
  readonly error: string;
  readonly statusCode = 400;
  constructor(error: string, description: string) {
    super(description);
    this.error = error;
  }
}

function oauthError(error: FastifyError | OauthBodyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof OauthBodyError) {
    void reply.code(400).header('Cache-Control', 'no-store').send({ error: error.error, error_description: error.message });
    return;
  }
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  void reply.code(status).header('Cache-Control', 'no-store').send({
    error: status === 500 ? 'server_error' : 'invalid_request',
    error_description: status === 500 ? 'The server could not handle the request' : error.message,
  });
}

/**
 * Hands a request to oidc-provider; a body Fastify read is passed on as `req.body` (it reads that).
 * The reply is taken over only once the provider exists, so a failure to make it is answered (500).
 */
async function handOver(server: AuthorizationServer, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const handler = await server.handler();
  void reply.hijack();
  const raw = request.raw as IncomingMessage & { body?: unknown };
  if (request.body !== undefined) raw.body = request.body;
  handler(raw, reply.raw);
}

export interface OauthSurfaceOptions {
  server: AuthorizationServer;
}

export const oauthSurface = fp<OauthSurfaceOptions>((scope, { server }, done) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, next) => {
    const text = body as string;
    // Never handed to JSON.parse: such a key makes V8 misread later keys process-wide (validation.ts).
    if (BACKSLASH_KEY.test(text)) {
      next(new OauthBodyError('invalid_client_metadata', 'a property named with one backslash is not accepted'), undefined);
      return;
    }
    try {
      next(null, secureJsonParse(text, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      next(new OauthBodyError('invalid_request', 'the request body is not valid JSON'), undefined);
    }
  });
  // Form bodies (and any other media type) reach oidc-provider unread: it parses forms itself and
  // refuses what an endpoint does not take, in OAuth's words.
  scope.addContentTypeParser('*', { bodyLimit: BODY_LIMIT }, (_request, _payload, next) => next(null, undefined));
  scope.setErrorHandler(oauthError);
  scope.setNotFoundHandler((request, reply) => handOver(server, request, reply));
  scope.all('/*', (request, reply) => handOver(server, request, reply));
  done();
}, { name: OAUTH_PLUGIN, dependencies: [ROOT_PLUGIN], encapsulate: true, fastify: '5.x' });
