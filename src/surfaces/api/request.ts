// The API scope's request decorations and route options. Fastify keeps decorations to the scope
// that declares them (api.surface.ts); TypeScript's module augmentation is global, so these types
// are visible to every surface but set only in the API's.
import type { Api } from '../http.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import type { Scope } from '../../modules/identity/scopes.ts';
import type { IdempotentCall } from '../../policy/idempotency.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller, once its credential is identified: set for a refused revoked or expired token
     * too, so its call is recorded. A handler runs only once the policy admitted the call.
     */
    principal: Principal | null;
    /** Deck touched by a call whose path names none (an import, a review start); for the activity log. */
    activityDeckId: string | null;
    /** The values of the shared keys the route's `auth.reads` named, read with the admission. */
    reads: readonly (string | null)[] | null;
    /** The Idempotency-Key call of a route that declares `idempotency`, when a key was sent. */
    idempotentCall: IdempotentCall | null;
    /** The catalog code the call was refused with (set by the error and not-found handlers), for the activity log. */
    errorCode: string | null;
    /**
     * A route caught the call only by taking a literal segment as its parameter (`/decks/capacity`
     * as `:deckId`); the not-found handler answered it (http-semantics.ts), and the route's own
     * policy neither admitted nor records it.
     */
    misrouted: boolean;
  }
  interface FastifyContextConfig {
    /**
     * A bearer token is required; `scope` null means any valid token. `reads` names shared keys
     * the handler needs (a deck's published version): they are read with the admission, in one
     * Redis round trip, and the handler finds their values in `request.reads`.
     */
    auth?: {
      scope: Scope | null;
      /** A second scope the call needs too (copying a public deck: public-decks:read and decks:write). */
      also?: Scope;
      reads?: (request: FastifyRequest) => readonly string[];
    };
    /** Idempotency-Key support under this operation name. */
    idempotency?: string;
    /** Media types the body may have (default application/json). */
    accepts?: readonly string[];
  }
}

export function decorateApiRequest(api: Api): void {
  api.decorateRequest('principal', null);
  api.decorateRequest('activityDeckId', null);
  api.decorateRequest('reads', null);
  api.decorateRequest('idempotentCall', null);
  api.decorateRequest('errorCode', null);
  api.decorateRequest('misrouted', false);
}
