import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import { addRouteHook } from '../http.ts';
import type { ActivityRecorder } from '../modules/activity/activity-recorder.ts';

/** Every call made with a token goes to the activity log, whatever its outcome. */
export function registerActivityLog(app: FastifyInstance, recorder: ActivityRecorder, clock: Clock): void {
  app.addHook('onRoute', (route) => {
    if (!(route.config as { auth?: unknown } | undefined)?.auth) return;
    const url = route.url;
    addRouteHook(route as never, 'onResponse', (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
      done();
      record(request, reply, url);
    });
  });

  function record(request: FastifyRequest, reply: FastifyReply, route: string): void {
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
      route,
      deckId: deckId ?? null,
      status: reply.statusCode,
      durationMs: Math.round(reply.elapsedTime),
      clientIp: request.ip ?? null,
      // U+0000 cannot reach PostgreSQL text through the JSON batch (HTTP parsers refuse it anyway).
      userAgent: typeof userAgent === 'string' ? userAgent.slice(0, 500).replaceAll('\0', '') : null,
      requestId: String(request.id),
    });
  }
}
