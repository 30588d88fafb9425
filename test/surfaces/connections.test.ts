// Connections as slow clients, attackers and broken clients meet them: timeouts that close a
// dribbling or idle connection (408 in the envelope), the envelope for what the HTTP parser refuses
// (431, malformed HTTP), and a 413 that a client still sending its body reads rather than a reset.
import assert from 'node:assert/strict';
import net from 'node:net';
import { before, describe, test } from 'node:test';
import { type TestUser, buildForSuite } from '../helpers/server.ts';

interface Exchange {
  /** Everything the server sent before the connection ended. */
  received: string;
  /** The socket error, if the connection failed rather than closed (a reset: ECONNRESET, EPIPE). */
  error: string | null;
}

/**
 * Opens a raw connection, lets `drive` write to it, and resolves once the server closes it (or
 * after `endAfterMs`, closing it ourselves: the exchange then shows what had been received).
 */
function exchange(port: number, drive: (socket: net.Socket) => void, endAfterMs = 0): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let error: string | null = null;
    socket.on('data', (data) => { received += data.toString('latin1'); });
    socket.on('error', (e: Error & { code?: string }) => { error = e.code ?? e.message; });
    socket.on('close', () => resolve({ received, error }));
    if (endAfterMs > 0) setTimeout(() => socket.destroy(), endAfterMs).unref();
    socket.on('connect', () => drive(socket));
  });
}

function statusOf(received: string): number {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
  return match ? Number(match[1]) : 0;
}

function envelopeOf(received: string): { error: { code: string; message: string; requestId: string } } {
  const body = received.slice(received.indexOf('\r\n\r\n') + 4);
  return JSON.parse(body) as { error: { code: string; message: string; requestId: string } };
}

function assertEnvelope(received: string, status: number, code: string): void {
  assert.equal(statusOf(received), status, received.slice(0, 300));
  assert.match(received, /\r\ncontent-type: application\/json/i);
  const parsed = envelopeOf(received);
  assert.deepEqual(Object.keys(parsed), ['error']);
  assert.equal(parsed.error.code, code);
  assert.equal(typeof parsed.error.message, 'string');
  // An id in the body and the header, as every error has, though the parser refused the request.
  assert.match(parsed.error.requestId, /^[0-9a-f-]{36}$/);
  assert.match(received, new RegExp(`\\r\\nx-request-id: ${parsed.error.requestId}\\r\\n`, 'i'));
}

/** Writes `pieces` one at a time, `gapMs` apart. */
function dribble(socket: net.Socket, pieces: string[], gapMs: number): void {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= pieces.length) {
      clearInterval(timer);
      return;
    }
    socket.write(pieces[i++]);
  }, gapMs);
  socket.once('close', () => clearInterval(timer));
}

describe('connection timeouts', () => {
  let user: TestUser;
  let port: number;
  const suite = buildForSuite({ env: { HEADERS_TIMEOUT_MS: '600', REQUEST_TIMEOUT_MS: '1200', IDLE_TIMEOUT_MS: '1500' }, socket: true });
  before(async () => {
    user = await suite.server.user();
    port = Number(new URL(suite.server.url).port);
  });

  test('should close a connection whose headers are dribbled with 408 REQUEST_TIMEOUT', { timeout: 20_000 }, async () => {
    const headers = Array.from({ length: 400 }, (_, i) => `X-Slow-${i}: x\r\n`);
    const result = await exchange(port, (socket) => {
      socket.write('GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\n');
      dribble(socket, headers, 50);
    });
    assertEnvelope(result.received, 408, 'REQUEST_TIMEOUT');
    assert.match(result.received, /\r\nconnection: close\r\n/i);
  });

  test('should close a connection whose body is dribbled with 408 REQUEST_TIMEOUT', { timeout: 20_000 }, async () => {
    const result = await exchange(port, (socket) => {
      socket.write(`POST /api/v1/decks/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n{`);
      dribble(socket, Array.from({ length: 4000 }, () => ' '), 50);
    });
    assertEnvelope(result.received, 408, 'REQUEST_TIMEOUT');
  });

  test('should close a connection that never sends a byte', { timeout: 20_000 }, async () => {
    const result = await exchange(port, () => {});
    if (result.received !== '') assertEnvelope(result.received, 408, 'REQUEST_TIMEOUT');
    assert.equal(result.error, null);
  });

  test('should serve a slow client that sends its request within the timeouts', { timeout: 20_000 }, async () => {
    const pieces = ['GET /api/v1/whoami HTTP/1.1\r\n', 'Host: x\r\n', `Authorization: Bearer ${user.token}\r\n`, 'Connection: close\r\n', '\r\n'];
    const result = await exchange(port, (socket) => dribble(socket, pieces, 40));
    assert.equal(statusOf(result.received), 200, result.received.slice(0, 300));
  });
});

describe('what the HTTP parser refuses, in the envelope', () => {
  let port: number;
  const suite = buildForSuite({ socket: true });
  before(async () => {
    port = Number(new URL(suite.server.url).port);
  });

  const send = (raw: string) => exchange(port, (socket) => socket.write(raw), 10_000);

  test('should answer headers over 16 KiB with 431 HEADERS_TOO_LARGE', async () => {
    const result = await send(`GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    assertEnvelope(result.received, 431, 'HEADERS_TOO_LARGE');
  });

  test('should answer malformed HTTP with 400 BAD_REQUEST', async () => {
    const requests = [
      'POST /api/v1/decks/import HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      'POST /api/v1/decks/import HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n',
      'GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nX-Nul: a\0b\r\n\r\n',
      'GET /api/v1/whoami HTTP/1.1\r\nHost: x\r\nBad Header: x\r\n\r\n',
      'NOT-HTTP\r\n\r\n',
    ];
    for (const raw of requests) assertEnvelope((await send(raw)).received, 400, 'BAD_REQUEST');
  });
});

describe('413 on a body still being sent', () => {
  let user: TestUser;
  let port: number;
  const suite = buildForSuite({ env: { BODY_LIMIT_BYTES: String(1024 * 1024) }, socket: true });
  before(async () => {
    user = await suite.server.user();
    port = Number(new URL(suite.server.url).port);
  });

  /** Sends the whole body first and reads only then, as simple clients do. */
  function upload(size: number, chunked: boolean, extraHeaders = ''): Promise<Exchange> {
    return exchange(port, (socket) => {
      socket.pause();
      socket.write(`POST /api/v1/decks/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${user.token}\r\nContent-Type: application/json\r\n${extraHeaders}`
        + (chunked ? 'Transfer-Encoding: chunked\r\n\r\n' : `Content-Length: ${size}\r\n\r\n`));
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const framed = chunked ? Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]) : piece;
      let sent = 0;
      const pump = (): void => {
        while (sent < size) {
          sent += piece.length;
          if (!socket.write(framed)) {
            socket.once('drain', pump);
            return;
          }
        }
        socket.write(chunked ? '0\r\n\r\n' : '', () => {
          socket.resume();
          socket.end();
        });
      };
      pump();
    });
  }

  test('should let a client that sends 8 MiB with Content-Length read 413 PAYLOAD_TOO_LARGE', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 5; i++) {
      const result = await upload(8 * 1024 * 1024, false);
      assert.equal(result.error, null, `round ${i}: ${result.error ?? ''}`);
      assertEnvelope(result.received, 413, 'PAYLOAD_TOO_LARGE');
    }
  });

  test('should let a client that streams 16 MiB chunked read 413 PAYLOAD_TOO_LARGE', { timeout: 60_000 }, async () => {
    for (let i = 0; i < 5; i++) {
      const result = await upload(16 * 1024 * 1024, true);
      assert.equal(result.error, null, `round ${i}: ${result.error ?? ''}`);
      assertEnvelope(result.received, 413, 'PAYLOAD_TOO_LARGE');
    }
  });

  test('should let a client that asked to close the connection read 413 too', { timeout: 60_000 }, async () => {
    const result = await upload(4 * 1024 * 1024, false, 'Connection: close\r\n');
    assert.equal(result.error, null, result.error ?? '');
    assertEnvelope(result.received, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('should let a client uploading with a bad token read 401 UNAUTHORIZED', { timeout: 60_000 }, async () => {
    const result = await exchange(port, (socket) => {
      socket.pause();
      socket.write('POST /api/v1/decks/import HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer nope\r\nContent-Type: application/json\r\nContent-Length: 4194304\r\nConnection: close\r\n\r\n');
      const piece = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        while (sent < 4 * 1024 * 1024) {
          sent += piece.length;
          if (!socket.write(piece)) {
            socket.once('drain', pump);
            return;
          }
        }
        socket.resume();
        socket.end();
      };
      pump();
    });
    assert.equal(result.error, null, result.error ?? '');
    assertEnvelope(result.received, 401, 'UNAUTHORIZED');
  });
});
