// Idempotency-Key on the routes that declare `config.idempotency`: claim after validation,
// replay a stored 2xx byte for byte, free the key on any failure. The 2xx itself is stored by
// the write's own transaction (storeWithWrite), so a crash can never leave a committed write
// whose key is still free to run it again.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { addRouteHook } from '../http.ts';
import { claimKey, completeKey, releaseKey } from '../modules/idempotency/idempotency.service.ts';

function requestHash(request: FastifyRequest, route: string): string {
  return createHash('sha256').update(JSON.stringify([
    request.method,
    route,
    request.params,
    request.query,
    typeof request.body === 'string' ? { markdown: request.body } : request.body,
  ])).digest('base64url');
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' ? value : undefined;
}

/** Registers the claim and store hooks on the routes (registered after this) that declare it. */
export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.addHook('onRoute', (route) => {
    const operation = (route.config as { idempotency?: string } | undefined)?.idempotency;
    if (!operation) return;
    const url = route.url;
    addRouteHook(route as never, 'preHandler', (request: FastifyRequest, reply: FastifyReply) => claim(request, reply, operation, url));
    addRouteHook(route as never, 'onSend', store);
  });

  async function claim(request: FastifyRequest, reply: FastifyReply, operation: string, route: string): Promise<FastifyReply | undefined> {
    const key = idempotencyKeyOf(request);
    if (key === undefined || !request.principal) return undefined;
    const id = { userId: request.principal.userId, operation, key };
    const outcome = await claimKey(db, clock, id, requestHash(request, route));
    if (outcome.kind === 'replay') {
      return reply.code(outcome.status)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.body);
    }
    request.idempotency = id;
    return undefined;
  }

  async function store(request: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
    const id = request.idempotency;
    if (id === null) return payload;
    request.idempotency = null;
    const ok = reply.statusCode >= 200 && reply.statusCode < 300;
    // A failure frees the key (only a pending claim is deleted: a stored response stays).
    if (!ok) await releaseKey(db, id);
    else if (!request.idempotencyStored && typeof payload === 'string') await completeKey(db, id, reply.statusCode, payload);
    return payload;
  }
}

/**
 * The response of an idempotent write, serialised once: stored under the request's key inside
 * the write's transaction (`commit`), and sent as these same bytes (`body`).
 */
export function storeWithWrite<T extends object>(request: FastifyRequest, status: (result: T) => number): {
  commit: (trx: Db, result: T) => Promise<void>;
  body: (result: T) => string;
} {
  const key = idempotencyKeyOf(request);
  const serialise = (result: T) => JSON.stringify(key === undefined ? result : { ...result, idempotencyKey: key });
  let stored: string | null = null;
  return {
    body: (result) => stored ?? serialise(result),
    commit: async (trx, result) => {
      const id = request.idempotency;
      if (id === null) return;
      stored = serialise(result);
      await completeKey(trx, id, status(result), stored);
      request.idempotencyStored = true;
    },
  };
}
