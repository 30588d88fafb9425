// Writes from the pages, declared on the route as the API declares its per-call policy
// (surfaces/api/route-policy.ts): a route with `config.webWrite` gets, bound when it is registered
// (no per-request lookup of its options), a preHandler that admits the write in the person's web
// bucket (policy.admitWebWrite: the 429 page with Retry-After when spent) before the handler does
// any work. It runs after the route's own preHandlers, so sign-in (a redirect), CSRF (the 403
// page) and any check of the form that costs nothing (an empty import) refuse first, as they
// did when each handler admitted its own writes.
//
// `webWrite: 'ownDeck'`: the path's :deckId must first be the signed-in person's deck (the 404
// page otherwise, before it costs them: one row read, nothing rendered); the handler finds it in
// `request.ownDeck` and hands it to the write, which then starts from it instead of reading it again.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { ownDeckOrNotFound, type DeckRecord } from '../../modules/decks/decks.service.ts';
import type { Policy } from '../../policy/policy.ts';
import { addRouteHook } from '../http.ts';
import { viewerOf } from './session.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A write from the pages, admitted in the person's web bucket before the handler runs (the
     * route must require sign-in). 'ownDeck': after checking that the path's :deckId is theirs.
     */
    webWrite?: true | 'ownDeck';
  }
  interface FastifyRequest {
    /** The signed-in person's deck named by the path, on a route declaring `webWrite: 'ownDeck'`. */
    ownDeck: DeckRecord | null;
  }
}

/** Binds the admission to every route registered after this in `scope` that declares `config.webWrite`. */
export function bindWebWrites(scope: FastifyInstance, ctx: ServiceContext, policy: Policy): void {
  scope.decorateRequest('ownDeck', null);

  async function admitWrite(request: FastifyRequest): Promise<void> {
    await policy.admitWebWrite(viewerOf(request));
  }

  async function admitOwnDeckWrite(request: FastifyRequest): Promise<void> {
    const owner = viewerOf(request);
    request.ownDeck = await ownDeckOrNotFound(ctx, owner, { deckId: (request.params as { deckId: string }).deckId });
    await policy.admitWebWrite(owner);
  }

  scope.addHook('onRoute', (route) => {
    const write = route.config?.webWrite;
    if (write === undefined) return;
    if (write === 'ownDeck' && !route.url.includes(':deckId')) throw new Error(`${route.url}: webWrite 'ownDeck' needs a :deckId in the path`);
    addRouteHook(route as never, 'preHandler', write === 'ownDeck' ? admitOwnDeckWrite : admitWrite);
  });
}

/** The deck a `webWrite: 'ownDeck'` route was admitted for (a programming error on any other route). */
export function ownDeckOf(request: FastifyRequest): DeckRecord {
  if (request.ownDeck === null) throw new Error("route without webWrite: 'ownDeck'");
  return request.ownDeck;
}
