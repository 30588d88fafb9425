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
    /** The value of the shared key the route's `auth.peek` named, read with the rate-limit check. */
    peeked: string | null;
  }
  interface FastifyContextConfig {
    /**
     * A bearer token is required; `scope` null means any valid token. `peek` names a shared key
     * the handler needs: it is read with the rate-limit check (one Redis round trip) and the
     * handler finds its value in `request.peeked`.
     */
    auth?: { scope: Scope | null; peek?: (request: FastifyRequest) => string | null };
    /** Idempotency-Key support under this operation name. */
    idempotency?: string;
    /** Media types the body may have (default application/json). */
    accepts?: readonly string[];
  }
}

export {};
