// Results whose JSON bytes exist before the SDK serialises its response: a deck read (the API's
// cached rendering, 160 KB for 250 cards) and the tool list (260 KB, the same for every request).
// A handler returns a placeholder object in their place, whose key is a per-process random nonce
// no client can guess; once the SDK has serialised the JSON-RPC response around it, the
// placeholder is replaced by the bytes. The SDK still frames every message: only the value it would
// have serialised to the very same bytes is not parsed and serialised again.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyReply } from 'fastify';

export class Embeds {
  readonly #nonce: string;
  readonly #bytes: Buffer[] = [];
  #toolBytes = false;

  constructor(nonce: string) {
    this.#nonce = nonce;
  }

  get empty(): boolean {
    return this.#bytes.length === 0;
  }

  /**
   * The placeholder of `bytes`. `toolResult`: the bytes are a tool's result (a deck read); such a
   * response has always been sent as bytes, so its Content-Type has no charset parameter, where a
   * response sent as text (the tool list) has `charset=utf-8` (Fastify adds it to text): both keep
   * their head.
   */
  embed(bytes: Buffer, toolResult: boolean): Record<string, unknown> {
    if (toolResult) this.#toolBytes = true;
    this.#bytes.push(bytes);
    return { [`${this.#nonce}:${this.#bytes.length - 1}`]: 0 };
  }

  /** Sends the SDK's response text with each placeholder replaced by its bytes. */
  send(reply: FastifyReply, text: string): FastifyReply {
    const type = reply.getHeader('content-type');
    if (!this.#toolBytes && typeof type === 'string' && !/;\s*charset=/i.test(type)) reply.type(`${type}; charset=utf-8`);
    return sendParts(reply, this.#parts(text));
  }

  /** The response text in parts, each placeholder object replaced by its bytes. */
  #parts(text: string): Buffer[] {
    const parts: Buffer[] = [];
    let from = 0;
    this.#bytes.forEach((bytes, i) => {
      const mark = `{"${this.#nonce}:${i}":0}`;
      const at = text.indexOf(mark, from);
      if (at < 0) throw new Error('an embedded result is missing from the MCP response');
      parts.push(Buffer.from(text.slice(from, at)), bytes);
      from = at + mark.length;
    });
    parts.push(Buffer.from(text.slice(from)));
    return parts;
  }
}

/**
 * Sends the parts as one body without copying them into one buffer (a fresh allocation of the
 * whole body per call, page faults and garbage included): Node corks the writes of one turn, so
 * the head and the parts leave in one writev, as Fastify's own send of one buffer would. The MCP
 * scope has no onSend hook to skip; onResponse and the request log still run (they follow the
 * response's end). The head is the one Fastify writes: the reply's headers, then Content-Length.
 */
function sendParts(reply: FastifyReply, parts: readonly Buffer[]): FastifyReply {
  let length = 0;
  for (const part of parts) length += part.length;
  reply.header('content-length', String(length));
  reply.hijack();
  const res = reply.raw;
  res.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders);
  for (let i = 0; i < parts.length - 1; i++) res.write(parts[i]);
  res.end(parts.at(-1));
  return reply;
}
