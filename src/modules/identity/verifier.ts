// A verifier turns a presented bearer token into a Principal. The policy (src/policy/) asks each
// verifier in turn whether it recognises the token's shape; the first that does decides. Personal
// access tokens: src/modules/tokens/pat-verifier.ts; OAuth access tokens plug in the same way.
import { AppError, type ErrorCode } from '../../errors.ts';
import type { Principal } from './principal.ts';

export type Verification =
  | { readonly principal: Principal; readonly refused: null }
  /**
   * Refused with UNAUTHORIZED or TOKEN_REVOKED. `principal` is the credential when it was
   * identified (a revoked or expired token whose secret matched), so the call is still recorded
   * in that credential's activity log; null when nothing was identified.
   */
  | { readonly principal: Principal | null; readonly refused: AppError };

export interface TokenVerifier {
  /** Whether the token has this verifier's shape. Cheap and without I/O: called on every call. */
  recognises(token: string): boolean;
  /**
   * `resource` is the protected resource the call is for (RFC 8707/9728: `{PUBLIC_URL}/api/v1`,
   * `{PUBLIC_URL}/mcp`): a token bound to another resource is refused (OAuth); a personal access
   * token is good for every resource. A verification made without I/O (a cached token) may be
   * returned as it is: the policy awaits only when it has to (docs/performance.md).
   */
  verify(token: string, resource: string): Verification | Promise<Verification>;
}

/** Why a token is refused, each said the same way by every verifier and the policy. */
const REFUSALS = {
  malformed: ['UNAUTHORIZED', 'The access token is malformed'],
  notValid: ['UNAUTHORIZED', 'The access token is not valid'],
  otherResource: ['UNAUTHORIZED', 'The access token was issued for another resource'],
  revoked: ['TOKEN_REVOKED', 'The access token has been revoked'],
  expired: ['TOKEN_REVOKED', 'The access token has expired'],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

/** A refused verification; `principal`: the credential, when the token was identified. */
export function refusal(reason: keyof typeof REFUSALS, principal: Principal | null = null): Verification {
  const [code, message] = REFUSALS[reason];
  return { principal, refused: new AppError(code, message) };
}
