// One tool call through the per-call policy, exactly as an API route: admit (the token's rate-limit
// bucket, shared with the API), require the route's scope, validate the arguments with the
// route's schemas, run the service, record the call in the activity log as `mcp:<tool>`. The result
// is the route's response body as structuredContent with a one-line text; an error is a result with
// isError and the API's envelope.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { AppError, envelope, isAppError } from '../../errors.ts';
import { deckSummaryOfBody } from '../../modules/decks/decks.mappers.ts';
import type { DeckSummary } from '../../modules/decks/decks.schemas.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import { type Policy, type ProtectedResource } from '../../policy/policy.ts';
import { isPromise } from '../../promise.ts';
import { isBackendUnavailable, logFailure, serviceUnavailable } from '../errors.ts';
import { ADVICE } from './advice.ts';
import type { Embeds } from './embeds.ts';
import { summarise } from './summaries.ts';
import type { Tool } from './tools.ts';

export interface RateLimitHeaders {
  readonly policy: string;
  readonly state: string;
}

/** What every call of one HTTP request shares. */
export interface CallContext {
  readonly ctx: ServiceContext;
  readonly policy: Policy;
  readonly resource: ProtectedResource;
  readonly principal: Principal;
  readonly request: FastifyRequest;
  /** Results sent as bytes serialised before the response (embeds.ts). */
  readonly embeds: Embeds;
  /** The rate-limit headers of the last call's admission or refusal (429), for the HTTP response. */
  rateLimit: RateLimitHeaders | null;
}

const NO_KEYS: readonly string[] = Object.freeze([]);

/** A deck body's summary fields, read once per body: bodies are rendered once per deck version and kept. */
const summaries = new WeakMap<Buffer, DeckSummary>();

function summaryOfBody(body: Buffer): DeckSummary {
  let summary = summaries.get(body);
  if (summary === undefined) {
    summary = deckSummaryOfBody(body);
    summaries.set(body, summary);
  }
  return summary;
}

function asAppError(error: unknown, request: FastifyRequest): AppError {
  const appError = isAppError(error) ? error : isBackendUnavailable(error) ? serviceUnavailable() : new AppError('INTERNAL_ERROR', 'Internal server error');
  logFailure(request, error, appError);
  return appError;
}

function errorResult(error: AppError): CallToolResult {
  const retryAfter = error.headers['Retry-After'] as string | undefined;
  const wait = retryAfter === undefined ? '' : ` Retry after ${retryAfter} s.`;
  const advice = ADVICE[error.code];
  return {
    content: [{ type: 'text', text: `${error.code}: ${error.message}.${wait}${advice === undefined ? '' : ` What to do: ${advice}.`}` }],
    structuredContent: envelope(error.code, error.message, error.details) as unknown as Record<string, unknown>,
    isError: true,
  };
}

export async function callTool(call: CallContext, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
  const { ctx, policy, principal, request } = call;
  const started = performance.now();
  let status = 500;
  let deckId: string | null = typeof args.deckId === 'string' ? args.deckId : null;
  try {
    // Awaited only when it is I/O (Redis): in-process counters answer at once.
    const admission = policy.admitNow(policy.tokenBucket(principal), request.ip, tool.reads?.(ctx, args) ?? NO_KEYS);
    const admitted = isPromise(admission) ? await admission : admission;
    call.rateLimit = { policy: admitted.rateLimitPolicy, state: admitted.rateLimit };
    policy.requireScope(principal, tool.route.scope, call.resource);
    const parsed = tool.schemas.parse(args);
    const outcome = await tool.run({ ctx, policy, principal, values: admitted.values }, parsed, tool.route);
    status = outcome.status;
    if (outcome.deckId !== undefined) deckId = outcome.deckId;
    const raw = Buffer.isBuffer(outcome.body);
    // A deck read is sent as its rendered bytes; its summary line is read from their head.
    const summaryOf = raw ? summaryOfBody(outcome.body) : outcome.body;
    return {
      content: [{ type: 'text', text: summarise(tool.name, summaryOf, outcome.replayed) }],
      structuredContent: raw ? call.embeds.embed(outcome.body, true) : outcome.body as Record<string, unknown>,
    };
  } catch (error) {
    const appError = asAppError(error, request);
    status = appError.status;
    // A call refused by the rate limit still tells the client its windows, as the API's 429 does.
    const { 'RateLimit-Policy': limitPolicy, RateLimit: limitState } = appError.headers;
    if (typeof limitPolicy === 'string' && typeof limitState === 'string') call.rateLimit = { policy: limitPolicy, state: limitState };
    return errorResult(appError);
  } finally {
    const userAgent = request.headers['user-agent'];
    policy.record(principal, {
      method: 'POST',
      route: `mcp:${tool.name}`,
      deckId,
      status,
      durationMs: Math.round(performance.now() - started),
      address: request.ip,
      userAgent: typeof userAgent === 'string' ? userAgent : null,
      requestId: String(request.id),
    });
  }
}
