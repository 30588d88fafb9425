// JSON-RPC batches (DECISIONS "MCP"): answered only under the revision that has them, 2025-03-26
// (2025-06-18 dropped them), at most MAX_BATCH messages each, and never held whole. The messages
// are answered one after another, each by the SDK as a request of its own, and each answer is
// written out before the next message is taken up: the server holds one answer at a time (at
// most the largest single API response), and other requests run between the messages.
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** DECISIONS: at most 10 requests a batch. */
export const MAX_BATCH = 10;

/** The revision that has batches; a request without `MCP-Protocol-Version` is of it (Streamable HTTP). */
export const BATCH_REVISION = '2025-03-26';

/** JSON-RPC 2.0 "Invalid Request". */
const INVALID_REQUEST = -32600;

export interface BatchRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
}

function methodOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null ? (message as { method?: unknown }).method : undefined;
}

/** A JSON-RPC request (a method and an id): it gets an answer; a notification or a response does not. */
export function isRequest(message: unknown): boolean {
  return typeof methodOf(message) === 'string' && typeof message === 'object' && message !== null && 'id' in message;
}

/** Why a batch is refused whole, or null. `revision`: the request's MCP-Protocol-Version header. */
export function batchRefusal(messages: readonly unknown[], revision: string | null): BatchRefusal | null {
  const refuse = (message: string): BatchRefusal => ({ status: 400, code: INVALID_REQUEST, message });
  if ((revision ?? BATCH_REVISION) !== BATCH_REVISION) {
    return refuse(`Invalid Request: JSON-RPC batches are part of protocol revision ${BATCH_REVISION} only; send one message per request`);
  }
  if (messages.length === 0) return refuse('Invalid Request: an empty batch');
  if (messages.length > MAX_BATCH) return refuse(`Invalid Request: a batch holds at most ${MAX_BATCH} messages; send the rest in further requests`);
  // As the SDK's transport refuses it (MCP 2025-03-26: initialize is never part of a batch).
  if (messages.length > 1 && messages.some((m) => methodOf(m) === 'initialize')) return refuse('Invalid Request: Only one initialization request is allowed');
  return null;
}

/**
 * The batch's answer as a stream: `[`, each message's answer (its JSON bytes as parts, the held
 * bytes of a deck read among them as they are, or null for a notification), `]`. A message is
 * answered only when the stream is read, so a slow reader holds the work back instead of the
 * answers piling up in memory.
 */
export function batchAnswer(answers: readonly (() => Promise<readonly Buffer[] | null>)[]): Readable {
  async function* parts(): AsyncGenerator<string | Buffer> {
    let first = true;
    for (const answer of answers) {
      // A turn of the event loop between messages: requests that arrived meanwhile are served
      // before the next message.
      await nextTurn();
      const bytes = await answer();
      if (bytes === null) continue;
      yield first ? '[' : ',';
      yield* bytes;
      first = false;
    }
    yield first ? '[]' : ']';
  }
  // Not object mode: the next part is made once the bytes before it are below the high-water mark.
  return Readable.from(parts(), { objectMode: false, highWaterMark: 64 * 1024 });
}
