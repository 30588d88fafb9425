import type { IdempotencyId } from './modules/idempotency/idempotency.repository.ts';

import type { Principal } from './modules/tokens/tokens.service.ts';
import type { Scope } from './modules/tokens/scopes.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Deck touched by a call whose path names none (an import); for the activity log. */
    activityDeckId: string | null;
    idempotency: IdempotencyId | null;
    /** Set once the response was stored with the write that produced it (same transaction). */
    idempotencyStored: boolean;
    /** What the route's `auth.alongside` started with the rate-limit check, if it has one. */
    alongside: Promise<unknown> | null;
  }
  interface FastifyContextConfig {
    /**
     * A bearer token is required; `scope` null means any valid token. `alongside` starts a lookup
     * the handler will need at the same moment as the rate-limit check, so that on Redis both
     * share one round trip; the handler finds it in `request.alongside`.
     */
    auth?: { scope: Scope | null; alongside?: (request: FastifyRequest) => Promise<unknown> };
    /** Idempotency-Key support under this operation name. */
    idempotency?: string;
    /** Media types the body may have (default application/json). */
    accepts?: readonly string[];
  }
}

export {};
