// Binary bodies (images, Anki packages) read into one buffer of the declared length. Fastify's own
// `parseAs: 'buffer'` keeps every chunk and concatenates them at the end: for the moment of the
// concatenation a body is in memory twice (100 MB for a 50 MB package, the largest part of the
// import's RSS growth, docs/performance.md "Formats"). Here each chunk is copied in as it comes
// and dropped. Without a Content-Length (chunked) the chunks are concatenated as Fastify does.
import type { FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { AppError } from '../../errors.ts';

const tooLarge = () => new AppError('PAYLOAD_TOO_LARGE', 'The request body is larger than this server accepts');

/** The body's bytes, within the route's body limit (413 PAYLOAD_TOO_LARGE past it). */
export function readBinaryBody(request: FastifyRequest, payload: Readable): Promise<Buffer> {
  const limit = request.routeOptions.bodyLimit;
  const header = request.headers['content-length'];
  const declared = header === undefined ? null : Number(header);
  return new Promise((resolve, reject) => {
    // As Fastify's own reader does: stop reading; the root's onError hook drains what is left.
    const fail = (error: Error) => {
      payload.removeAllListeners('data');
      reject(error);
    };
    if (declared !== null && (!Number.isSafeInteger(declared) || declared < 0)) {
      fail(new AppError('BAD_REQUEST', 'The Content-Length header is not a length'));
      return;
    }
    if (declared !== null && declared > limit) {
      fail(tooLarge());
      return;
    }
    const whole = declared === null ? null : Buffer.allocUnsafe(declared);
    const chunks: Buffer[] = [];
    let received = 0;
    let done = false;
    payload.on('data', (chunk: Buffer) => {
      if (done) return;
      if (received + chunk.length > (whole?.length ?? limit)) {
        done = true;
        fail(whole === null ? tooLarge() : new AppError('BAD_REQUEST', 'The body is longer than its Content-Length'));
        return;
      }
      if (whole === null) chunks.push(chunk);
      else chunk.copy(whole, received);
      received += chunk.length;
    });
    payload.once('end', () => {
      if (done) return;
      done = true;
      if (whole !== null && received !== whole.length) reject(new AppError('BAD_REQUEST', 'The body is shorter than its Content-Length'));
      else resolve(whole ?? Buffer.concat(chunks, received));
    });
    payload.once('error', (error) => {
      if (done) return;
      done = true;
      reject(error);
    });
  });
}
