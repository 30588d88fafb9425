// Errors as every surface sees them: any error a request meets (a service's catalog error, a
// validation failure, a framework error, an unreachable backend) becomes one catalog error
// (toAppError), which a surface renders its own way. The JSON envelope renderer here serves the API
// and the root (paths outside every surface); a page surface renders HTML from the same AppError.
// 5xx messages are generic, and no stack trace leaves the server.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelope, isAppError } from '../errors.ts';
import { JSON_TYPE } from './http.ts';
import { bodyValidationError, queryValidationError } from '../validation.ts';

const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN',
  // PostgreSQL: admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections
  '57P01', '57P02', '57P03', '53300',
]);

const CONNECTION_ERROR_MESSAGES = [
  /^Connection terminated/, // pg: the server or the network dropped the connection
  /^timeout exceeded when trying to connect/, // pg pool
  /not queryable/, // pg: a client that already saw a connection error
  /^Connection is closed/, // ioredis
  /^Stream isn't writeable/, // ioredis without its offline queue
  /^Command timed out/, // ioredis commandTimeout
  /^(LOADING|MASTERDOWN|READONLY|BUSY|CLUSTERDOWN|TRYAGAIN)\b/, // Redis replies while it cannot serve
];

/**
 * Whether an error means a backing service (PostgreSQL, Redis) is unreachable rather than that the
 * request or the code is wrong: such requests get 503 and a Retry-After, and the instance
 * recovers by itself (pools reconnect on the next use).
 */
export function isBackendUnavailable(error: unknown): boolean {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    if (e.name === 'MaxRetriesPerRequestError') return true;
    if (CONNECTION_ERROR_MESSAGES.some((re) => re.test(e.message))) return true;
    if (e instanceof AggregateError && e.errors.some((inner) => isBackendUnavailable(inner))) return true;
  }
  return false;
}

export function serviceUnavailable(): AppError {
  return new AppError('SERVICE_UNAVAILABLE', 'A backing service is unavailable', undefined, { 'Retry-After': '5' });
}

/** Any error a request meets (thrown by a service, a hook or Fastify) as the catalog error it answers with. */
export function toAppError(thrown: unknown, request: FastifyRequest): AppError {
  if (isAppError(thrown)) return thrown;
  if (isBackendUnavailable(thrown)) return serviceUnavailable();
  if (!(thrown instanceof Error)) return new AppError('INTERNAL_ERROR', 'Internal server error');
  const error = thrown as FastifyError;
  if (error.validation) {
    // An absent body never gets here: the API's body check answers it with BAD_REQUEST first.
    if (error.validationContext === 'body') return bodyValidationError(error.validation as never);
    return queryValidationError(error.validation as never, error.validationContext ?? 'querystring');
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this server accepts');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${request.headers['content-type'] ?? '(none)'} is not accepted`);
    default:
      break;
  }
  const status = error.statusCode ?? 500;
  if (status === 404) return new AppError('NOT_FOUND', 'No such route');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this server accepts');
  if (status === 415) return new AppError('UNSUPPORTED_MEDIA_TYPE', 'Unsupported Content-Type');
  // Malformed and empty JSON bodies are answered by the API's JSON parser (api/content-types.ts).
  if (status >= 400 && status < 500) return new AppError('BAD_REQUEST', 'Malformed request');
  if (status === 503) return serviceUnavailable();
  return new AppError('INTERNAL_ERROR', 'Internal server error');
}

/**
 * Errors Fastify raises before routing (a malformed URL, an over-long path parameter) bypass every
 * error handler; this renders them in the envelope too. Set on the root instance.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? new AppError('URI_TOO_LONG', 'A path parameter is too long')
    : new AppError('BAD_REQUEST', 'The URL is malformed');
  // Before routing, no onRequest hook has set the header: set here, so body and header agree.
  reply.code(appError.status).header('X-Request-Id', String(request.id)).type(JSON_TYPE)
    .send(envelope(appError.code, appError.message, undefined, String(request.id)));
}

/** Logs what an operator must see: a backend away, or a fault of ours. */
export function logFailure(request: FastifyRequest, error: unknown, appError: AppError): void {
  // A 503 a service chose (the password-hashing queue is full) is load shed as designed: a line
  // per refused request would flood the log during the very burst it sheds.
  if (appError.code === 'SERVICE_UNAVAILABLE') {
    if (error !== appError) request.log.warn({ err: error }, 'backing service unavailable');
  }
  else if (appError.status >= 500) request.log.error({ err: error }, 'request failed');
}

/** toAppError, having logged what an operator must see (logFailure): every surface's first step with an error. */
export function loggedAppError(thrown: unknown, request: FastifyRequest): AppError {
  const appError = toAppError(thrown, request);
  logFailure(request, thrown, appError);
  return appError;
}

/** Sets a catalog error's headers (Retry-After, WWW-Authenticate, RateLimit) on the reply that answers with it. */
export function withErrorHeaders<R extends FastifyReply>(reply: R, error: AppError): R {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply;
}

/** An error handler that answers with the JSON envelope (and the error's headers). */
export function jsonErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = loggedAppError(error, request);
  request.errorCode = appError.code;
  withErrorHeaders(reply, appError).code(appError.status).type(JSON_TYPE).send(envelope(appError.code, appError.message, appError.details, String(request.id)));
}

/** A not-found handler that answers with the JSON envelope. */
export function jsonNotFound(request: FastifyRequest, reply: FastifyReply): void {
  request.errorCode = 'NOT_FOUND';
  reply.code(404).type(JSON_TYPE).send(envelope('NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0] ?? ''}`, undefined, String(request.id)));
}
