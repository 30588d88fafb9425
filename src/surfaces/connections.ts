// Connection-level answers: what a client gets when the HTTP parser or a timeout refuses its
// request before Fastify has one (408, 431, malformed HTTP), and the lingering read after an error
// answered before the request's body was read (a 413, a 401 on an upload), so the client, still
// sending, reads the answer instead of a connection reset (nginx's "lingering close").
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError, envelope } from '../errors.ts';

/** Sockets whose request was answered and whose body is being read and dropped. */
const lingering = new WeakSet<Socket>();

function clientErrorFor(code: string | undefined): AppError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT', 'The request did not arrive in time');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE', 'The request headers are larger than this server accepts');
    default:
      return new AppError('BAD_REQUEST', 'The request is not valid HTTP');
  }
}

/**
 * Fastify's clientErrorHandler: the error envelope on the raw socket (there is no request object),
 * `Connection: close`, then a lingering close. A socket already answered (lingering, or mid
 * response) is just closed: a second status line would corrupt what the client reads.
 */
export function clientErrors(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answered = lingering.has(socket) || (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage?.headersSent === true;
  if (answered || !socket.writable) {
    socket.destroy();
    return;
  }
  const appError = clientErrorFor(error.code);
  // An id of its own, as every other error has (DECISIONS: `error.requestId` in every error body),
  // though no request object exists: it names this answer in a support request.
  const requestId = randomUUID();
  const body = JSON.stringify(envelope(appError.code, appError.message, undefined, requestId));
  socket.end([
    `HTTP/1.1 ${appError.status} ${statusText(appError.status)}`,
    'Content-Type: application/json; charset=utf-8',
    `X-Request-Id: ${requestId}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n'));
  lingerThenClose(socket, 2_000);
}

function statusText(status: number): string {
  return ({ 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' } as Record<number, string>)[status] ?? 'Error';
}

/** Reads and drops what the peer still sends after our FIN, for at most `ms`, then closes. */
function lingerThenClose(socket: Socket, ms: number): void {
  lingering.add(socket);
  const timer = setTimeout(() => socket.destroy(), ms);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.on('data', () => {});
  socket.resume();
}

/**
 * Called by an error handler before it answers: when the request's body has not been read (yet, or
 * at all: a 413 decided on Content-Length, a 401 before the upload arrived), the rest of the body
 * is read and dropped while the answer is sent, for at most `lingerMs`, and the connection stays
 * usable (keep-alive) unless the client asked to close it. Closing at once would reset the
 * connection while the client is still sending, and it would never read the answer.
 */
export function drainUnreadBody(request: FastifyRequest, reply: FastifyReply, lingerMs: number): void {
  const raw: IncomingMessage = request.raw;
  if (raw.complete || raw.destroyed) return;
  const socket = raw.socket;
  const response = reply.raw;
  // Fastify asks to close after a body error; Node would then destroy the socket with the body
  // unread. Keep it open while reading, and close it ourselves once the body is over.
  reply.removeHeader('connection');
  const clientCloses = !response.shouldKeepAlive;
  response.shouldKeepAlive = true;
  lingering.add(socket);
  const timer = setTimeout(() => socket.destroy(), lingerMs);
  timer.unref();
  const onClose = (): void => clearTimeout(timer);
  socket.once('close', onClose);
  raw.once('end', () => {
    clearTimeout(timer);
    // The socket lives on (keep-alive): leave no listener behind per answered request.
    socket.removeListener('close', onClose);
    lingering.delete(socket);
    if (clientCloses) socket.end();
  });
  raw.resume();
}
