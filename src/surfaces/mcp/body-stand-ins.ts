// A tool result whose structuredContent is JSON bytes the API already holds (a deck read, rendered
// once per deck version, docs/performance.md): the SDK is handed a small stand-in object in its
// place, and the bytes are put where the stand-in is in the SDK's serialised answer. The answer is
// the same JSON the SDK would have written for the parsed body, without parsing the body, building
// it as objects and serialising it again per call (five allocations of the body's size and most of
// a get_deck's CPU; for the largest deck, 7.9 MB, about 100 ms of synchronous work a call).
//
// The stand-in is `{"flashdeck:held-body":"<token>"}`, the token unique to the process and the
// call. Within a JSON string every `"` is escaped, so that sequence of bytes can only be the
// stand-in object itself: nothing a client or a deck holds can be mistaken for it.
import { randomBytes } from 'node:crypto';

const KEY = 'flashdeck:held-body';
const OPENING = Buffer.from(`{"${KEY}":"`);
const CLOSING = Buffer.from('"}');
const PROCESS_NONCE = randomBytes(8).toString('hex');
let issued = 0;

/** The bytes stood in for by the results of one HTTP request's messages, until they are placed. */
export class BodyStandIns {
  readonly #held = new Map<string, Buffer>();

  /** A stand-in for `bytes` (a JSON object), to be given to the SDK as structuredContent. */
  standIn(bytes: Buffer): Record<string, unknown> {
    const token = `${PROCESS_NONCE}-${(issued++).toString(36)}`;
    this.#held.set(token, bytes);
    return { [KEY]: token };
  }

  /**
   * The answer as parts, each stand-in replaced by its bytes (which are then let go): the bytes are
   * the held Buffer itself, not a copy, so a caller can write the parts without joining them.
   */
  placed(answer: Buffer): Buffer[] {
    if (this.#held.size === 0) return [answer];
    const parts: Buffer[] = [];
    let from = 0;
    for (let at = answer.indexOf(OPENING, from); at >= 0; at = answer.indexOf(OPENING, from)) {
      const tokenStart = at + OPENING.length;
      const tokenEnd = answer.indexOf(CLOSING, tokenStart);
      const token = tokenEnd < 0 ? '' : answer.toString('latin1', tokenStart, tokenEnd);
      const bytes = this.#held.get(token);
      if (bytes === undefined) break;
      this.#held.delete(token);
      if (at > from) parts.push(answer.subarray(from, at));
      parts.push(bytes);
      from = tokenEnd + CLOSING.length;
    }
    if (from < answer.length || parts.length === 0) parts.push(answer.subarray(from));
    return parts;
  }
}
