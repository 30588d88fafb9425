// What a model should do about each error code (the catalog's `advice`, src/errors.ts): said once
// in the server's instructions, each tool's description naming its codes (an error result's text
// is the API's envelope alone).
import { ERROR_CATALOG, type ErrorCode } from '../../errors.ts';

/** Codes every tool can return, explained once in the server's instructions rather than per tool. */
export const COMMON_CODES: readonly ErrorCode[] = ['RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];

/**
 * The "Errors" paragraph of a tool's description: the codes its API route can return that a model
 * is advised about (codes of the HTTP request alone, such as UNAUTHORIZED, have no advice: they never
 * reach a tool result). What to do about each is said once, in the server's instructions
 * (adviceParagraph), not in every tool.
 */
export function errorsParagraph(codes: readonly ErrorCode[]): string {
  const listed = codes.filter((c) => !COMMON_CODES.includes(c) && ERROR_CATALOG[c].advice !== undefined);
  if (listed.length === 0) return '';
  return `\n\nErrors: ${listed.join(', ')}.`;
}

/** What to do about each error code a tool can return, for the server's instructions. */
export function adviceParagraph(): string {
  const advised = Object.entries(ERROR_CATALOG).filter(([, entry]) => entry.advice !== undefined);
  return `A tool error is a result with isError true whose text is {"error": {"code", "message", "details", "requestId"}}; each tool's description names its codes. What to do about each error code: ${advised.map(([code, entry]) => `${code}: ${entry.advice ?? ''}`).join('; ')}.`;
}
