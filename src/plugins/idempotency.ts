// Idempotency-Key on the routes that declare `config.idempotency`: claim after validation,
// replay a stored 2xx byte for byte, store the 2xx we send, free the key on any failure.
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { claimKey, completeKey, releaseKey } from '../modules/idempotency/idempotency.service.ts';

function requestHash(request: FastifyRequest): string {
  return createHash('sha256').update(JSON.stringify([
    request.method,
    request.routeOptions.url,
    request.params,
    request.query,
    typeof request.body === 'string' ? { markdown: request.body } : request.body,
  ])).digest('base64url');
}

export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = request.headers['idempotency-key'];
  return typeof value === 'string' ? value : undefined;
}

export function registerIdempotency(app: FastifyInstance, db: Db, clock: Clock): void {
  app.addHook('preHandler', async (request: FastifyRequest, reply: FastifyReply) => {
    const operation = request.routeOptions.config.idempotency;
    const key = idempotencyKeyOf(request);
    if (!operation || key === undefined || !request.principal) return;
    const id = { userId: request.principal.userId, operation, key };
    const outcome = await claimKey(db, clock, id, requestHash(request));
    if (outcome.kind === 'replay') {
      return reply.code(outcome.status)
        .header('Idempotent-Replayed', 'true')
        .type('application/json; charset=utf-8')
        .send(outcome.body);
    }
    request.idempotency = id;
  });

  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const id = request.idempotency;
    if (id === null) return payload;
    request.idempotency = null;
    if (reply.statusCode >= 200 && reply.statusCode < 300 && typeof payload === 'string') {
      await completeKey(db, id, reply.statusCode, payload);
    } else {
      await releaseKey(db, id);
    }
    return payload;
  });
}
