// Idempotency-Key on the API's routes that declare `config.idempotency`: the call (operation,
// key, request hash) is taken once the request is validated, by a preHandler bound at
// registration; the handler's write then runs through the policy's runner (src/policy/idempotency.ts),
// which replays a stored 2xx byte for byte, stores a fresh one in the write's transaction, and frees
// the key on any failure.
import type { FastifyRequest } from 'fastify';
import { addRouteHook, principalOf, sendJson, soleHeader, type Api, type IdempotentReply } from '../http.ts';
import { requestHash, storedBody } from '../../policy/idempotency.ts';
import type { Policy } from '../../policy/policy.ts';
import { mediaType } from './content-types.ts';

export function bindIdempotentRoutes(api: Api): void {
  api.addHook('onRoute', (route) => {
    const operation = route.config?.idempotency;
    if (!operation) return;
    const url = route.url;
    // A route that takes no body (copying a public deck) gets none or `{}` (content-types.ts
    // refuses anything else before this runs): no part of the request, so it is never hashed.
    const takesBody = route.schema?.body !== undefined || route.config?.accepts !== undefined;
    addRouteHook(route as never, 'preHandler', async (request: FastifyRequest) => {
      const key = soleHeader(request.raw, 'idempotency-key');
      request.idempotentCall = key === undefined
        ? null
        : { operation, key, requestHash: requestHash(request.method, url, request.params, request.query, takesBody ? hashedBody(request) : null) };
    });
  });
}

/** The body as the request hash sees it: CSV text is not the markdown document with the same text. */
function hashedBody(request: FastifyRequest): unknown {
  const { body } = request;
  return typeof body === 'string' && mediaType(request.headers['content-type']) === 'text/csv' ? { csv: body } : body;
}

/** The routes' IdempotentReply (src/surfaces/http.ts): the key is echoed in the body as `idempotencyKey`. */
export function idempotentReply(policy: Policy): IdempotentReply {
  return async (request, reply, write, status) => {
    const call = request.idempotentCall;
    const outcome = await policy.idempotent(principalOf(request), call, write, (result) => ({
      status: status(result),
      body: storedBody(call, result),
    }));
    if (outcome.replayed) {
      reply.header('Idempotent-Replayed', 'true');
      // The write did not run, so it did not name the deck it made: the stored answer does (a
      // create import's deckId), for the activity log, as the first call's entry has it.
      if (request.activityDeckId === null && (request.params as { deckId?: unknown } | undefined)?.deckId === undefined) {
        request.activityDeckId = deckIdIn(outcome.body);
      }
    }
    return sendJson(reply.code(outcome.status), outcome.body);
  };
}

/** The deck a stored answer names: an import's `deckId`, or an Anki import's first deck. */
function deckIdIn(body: string | Buffer): string | null {
  try {
    const answer = JSON.parse(body.toString()) as { deckId?: unknown; decks?: { deckId?: unknown }[] };
    const id = answer.deckId ?? answer.decks?.[0]?.deckId;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}
