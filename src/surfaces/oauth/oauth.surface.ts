// The authorization server's endpoints under /oauth/ (DECISIONS "OAuth 2.1"), as one encapsulated
// plugin: oidc-provider answers them (its own errors, in OAuth's shape), and this scope owns only
// what reaches it first: the registration throttle, the JSON guard of a registration body (read
// here within the limit, checked by the surfaces' one JSON reader, then handed to oidc-provider as
// the request stream it expects), and the error of a request that never got through.
// The sign-in and consent pages are the web surface's (src/surfaces/web/pages/oauth.pages.ts).
import { IncomingMessage } from 'node:http';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppError } from '../../errors.ts';
import type { Policy } from '../../policy/policy.ts';
import type { WindowLimits } from '../../stores/rate-limits/rate-limits.ts';
import { parseJsonText } from '../json-text.ts';
import { anyOriginPreflight } from '../http.ts';
import { ROOT_PLUGIN } from '../root.ts';
import { OAUTH_PREFIX, type AuthorizationServer } from '../authorization-server.ts';

export const OAUTH_PLUGIN = 'flashdeck-oauth';

/** oidc-provider's own limit for a request body. */
const BODY_LIMIT = 56 * 1024;

/** A JSON body read and checked here, to be handed on as it came. */
class CheckedBody {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}

/**
 * The request again, its body the bytes already read: oidc-provider reads a request's body from
 * its stream (a body parsed upstream makes it warn and take `req.body` instead). Same socket,
 * headers and URL; nothing more arrives, so reading asks the socket for nothing.
 */
class ReplayedRequest extends IncomingMessage {
  override _read(): void {}
}

function replay(raw: IncomingMessage, body: Buffer): IncomingMessage {
  const copy = new ReplayedRequest(raw.socket);
  copy.method = raw.method;
  copy.url = raw.url;
  copy.headers = raw.headers;
  copy.rawHeaders = raw.rawHeaders;
  copy.httpVersion = raw.httpVersion;
  copy.httpVersionMajor = raw.httpVersionMajor;
  copy.httpVersionMinor = raw.httpVersionMinor;
  copy.complete = true;
  copy.push(body);
  copy.push(null);
  return copy;
}

function send(reply: FastifyReply, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  void reply.code(status).headers(headers).header('Cache-Control', 'no-store').send({ error, error_description: description });
}

/** OAuth's error shape (RFC 6749 5.2) for what this scope refuses before oidc-provider sees it. */
function oauthError(error: FastifyError | AppError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error instanceof AppError) {
    if (error.code === 'RATE_LIMITED') {
      send(reply, 429, 'too_many_requests', 'Too many client registrations from this address; try again after Retry-After seconds', {
        'Retry-After': error.headers['Retry-After'] ?? '60',
      });
    } else {
      // The JSON guard: a key of one backslash is metadata refused; anything else is not JSON.
      send(reply, 400, error.code === 'SCHEMA_INVALID' ? 'invalid_client_metadata' : 'invalid_request', error.message);
    }
    return;
  }
  const status = typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  send(reply, status, status === 500 ? 'server_error' : 'invalid_request', status === 500 ? 'The server could not handle the request' : error.message);
}

/**
 * Hands a request to oidc-provider, a JSON body as the stream it reads. The reply is taken over
 * only once the provider exists, so a failure to make it is answered (500).
 */
async function handOver(server: AuthorizationServer, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const handler = await server.handler();
  // Set on the raw response: a hijacked reply sends none of Fastify's headers.
  if (isRegistration(request)) reply.raw.setHeader('Access-Control-Allow-Origin', '*');
  void reply.hijack();
  handler(request.body instanceof CheckedBody ? replay(request.raw, request.body.bytes) : request.raw, reply.raw);
}

const REGISTRATION_PATH = '/oauth/register';

function isRegistration(request: FastifyRequest): boolean {
  if (request.method !== 'POST') return false;
  const path = request.url.split('?', 1)[0] ?? '';
  return path === REGISTRATION_PATH || path === `${REGISTRATION_PATH}/`;
}

export interface OauthSurfaceOptions {
  server: AuthorizationServer;
  policy: Policy;
  /** Registrations per client address (DECISIONS: throttled), counted like a token's calls. */
  registrationLimits: WindowLimits;
}

export const oauthSurface = fp<OauthSurfaceOptions>((scope, { server, policy, registrationLimits }, done) => {
  // Before the body is read: a throttled address costs nothing more. Registration is open to any
  // origin, as the token endpoint is: an agent running in a browser page (the MCP Inspector's)
  // registers from there, and anyone may register from anywhere else anyway (throttled per address).
  scope.addHook('onRequest', async (request, reply) => {
    if (!isRegistration(request)) return;
    void reply.header('Access-Control-Allow-Origin', '*');
    await policy.admit({ key: `oauth-register:${request.ip}`, limits: registrationLimits }, null, []);
  });
  // Under the surface's prefix (/oauth).
  anyOriginPreflight(scope, REGISTRATION_PATH.slice(OAUTH_PREFIX.length), 'POST, OPTIONS');
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, next) => {
    const bytes = body as Buffer;
    try {
      // Checked, never used: oidc-provider parses the same bytes itself.
      parseJsonText(bytes.toString('utf8'));
      next(null, new CheckedBody(bytes));
    } catch (error) {
      next(error as AppError, undefined);
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
