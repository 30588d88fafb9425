import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { ActivityRecorder } from '../modules/activity/activity-recorder.ts';

/** Every call made with a token goes to the activity log, whatever its outcome. */
export function registerActivityLog(app: FastifyInstance, recorder: ActivityRecorder, clock: Clock): void {
  app.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const principal = request.principal;
    if (!principal) return;
    const params = request.params as { deckId?: unknown } | undefined;
    const deckId = typeof params?.deckId === 'string' ? params.deckId : request.activityDeckId;
    const userAgent = request.headers['user-agent'];
    recorder.record({
      tokenId: principal.tokenId,
      userId: principal.userId,
      at: clock.now().toISOString(),
      method: request.method,
      route: request.routeOptions.url ?? request.url.split('?')[0] ?? '',
      deckId: deckId ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
      clientIp: request.ip ?? null,
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500) : null,
      requestId: String(request.id),
    });
  });
}
