// One tool call through the per-call policy, exactly as an API route: admit (the token's rate-limit
// bucket, shared with the API), require the route's scope, validate the arguments with the
// route's schemas, run the service, record the call in the activity log as `mcp:<tool>`. The result
// is the route's response body as structuredContent with a one-line text; an error is a result with
// isError whose one text content is the API's error envelope as JSON (DECISIONS "MCP").
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { AppError, envelope } from '../../errors.ts';
import { deckSummaryOfText } from '../../modules/decks/decks.mappers.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import { OAUTH_SCOPES } from '../../modules/identity/scopes.ts';
import { NO_READS, type Policy, type ProtectedResource } from '../../policy/policy.ts';
import { isPromise } from '../../promise.ts';
import { loggedAppError } from '../errors.ts';
import { callRecord } from '../http.ts';
import type { BodyStandIns } from './body-stand-ins.ts';
import { summarise } from './summaries.ts';
import type { Tool } from './tools.ts';

export interface RateLimitHeaders {
  readonly policy: string;
  readonly state: string;
}

/** The caller of one HTTP request to /mcp: what every message and tool call of it shares. */
export interface CallContext {
  readonly ctx: ServiceContext;
  readonly policy: Policy;
  readonly resource: ProtectedResource;
  readonly principal: Principal;
  readonly request: FastifyRequest;
  /** The rate-limit headers of the last call's admission or refusal (429), for the HTTP response. */
  rateLimit: RateLimitHeaders | null;
  /** Results' held bytes (a deck read's), placed into the SDK's answers (body-stand-ins.ts). */
  readonly bodies: BodyStandIns;
}

/** An API error as a tool result: its envelope as JSON text, and nothing else (DECISIONS "MCP"). */
function errorResult(error: AppError, requestId: string): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(envelope(error.code, error.message, error.details, requestId)) }], isError: true };
}

function record(call: CallContext, tool: string, status: number, deckId: string | null, started: number, errorCode: string | null): void {
  call.policy.record(call.principal, callRecord(call.request, {
    route: `mcp:${tool}`, deckId, status, durationMs: Math.round(performance.now() - started), errorCode,
  }));
}

export async function callTool(call: CallContext, tool: Tool, args: Record<string, unknown>): Promise<CallToolResult> {
  const { ctx, policy, principal, request } = call;
  const started = performance.now();
  let status = 500;
  let errorCode: string | null = 'INTERNAL_ERROR';
  let deckId: string | null = typeof args.deckId === 'string' ? args.deckId : null;
  try {
    // Awaited only when it is I/O (Redis): in-process counters answer at once.
    const admission = policy.admitCall(principal, tool.route.scope, call.resource, request.ip, tool.reads?.(ctx, args) ?? NO_READS);
    const admitted = isPromise(admission) ? await admission : admission;
    call.rateLimit = { policy: admitted.rateLimitPolicy, state: admitted.rateLimit };
    if (tool.route.also !== null) policy.requireScope(principal, tool.route.also, call.resource);
    const parsed = tool.schemas.parse(args);
    const outcome = await tool.run({ ctx, policy, principal, values: admitted.values }, parsed, tool.route);
    status = outcome.status;
    errorCode = null;
    if (outcome.deckId !== undefined) deckId = outcome.deckId;
    // A deck read is the API's rendered bytes (kept per deck version): they go out as they are, the
    // same JSON as the API sends, put in place of a stand-in once the SDK has written its answer.
    if (Buffer.isBuffer(outcome.body)) {
      const text = summarise(tool, deckSummaryOfText(outcome.body), outcome.replayed);
      return { content: [{ type: 'text', text }], structuredContent: call.bodies.standIn(outcome.body) };
    }
    return { content: [{ type: 'text', text: summarise(tool, outcome.body, outcome.replayed) }], structuredContent: outcome.body };
  } catch (error) {
    const appError = loggedAppError(error, request);
    status = appError.status;
    errorCode = appError.code;
    // A call refused by the rate limit still tells the client its windows, as the API's 429 does.
    const { 'RateLimit-Policy': limitPolicy, RateLimit: limitState } = appError.headers;
    if (typeof limitPolicy === 'string' && typeof limitState === 'string') call.rateLimit = { policy: limitPolicy, state: limitState };
    return errorResult(appError, String(request.id));
  } finally {
    record(call, tool.name, status, deckId, started, errorCode);
  }
}

/** The `tools/call` requests among one POST's messages: each tool named, and its JSON-RPC id. */
function toolCalls(body: unknown): { name: string; id: unknown; deckId: string | null }[] {
  const calls: { name: string; id: unknown; deckId: string | null }[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, id, params } = (message ?? {}) as { method?: unknown; id?: unknown; params?: { name?: unknown; arguments?: { deckId?: unknown } } };
    if (method !== 'tools/call' || typeof params?.name !== 'string') continue;
    const deckId = params.arguments?.deckId;
    calls.push({ name: params.name, id, deckId: typeof deckId === 'string' ? deckId.slice(0, 100) : null });
  }
  return calls;
}

/**
 * Step-up (DECISIONS "MCP"): a tool call whose OAuth token lacks the tool's scope is refused
 * before it is made, with the policy's 403 and its `insufficient_scope` challenge naming the scope,
 * so the client can ask the person for more. A personal access token cannot step up: its call goes
 * on and gets the tool error FORBIDDEN (as does an OAuth call needing a scope no grant carries). The refusal is recorded under the tool, as the API's 403 is;
 * one refused call refuses the whole POST (a batch too), as the SDK's scope challenges do.
 */
export function stepUpRefusal(call: CallContext, body: unknown, tools: ReadonlyMap<string, Tool>): { error: AppError; id: unknown } | null {
  if (call.principal.source !== 'oauth') return null;
  for (const { name, id, deckId } of toolCalls(body)) {
    const tool = tools.get(name);
    // A scope no OAuth grant can carry cannot be stepped up to: the call's FORBIDDEN says so.
    if (tool?.route.scope == null || !(OAUTH_SCOPES as readonly string[]).includes(tool.route.scope)) continue;
    try {
      call.policy.requireScope(call.principal, tool.route.scope, call.resource);
    } catch (error) {
      const refusal = loggedAppError(error, call.request);
      record(call, tool.name, refusal.status, deckId, performance.now(), refusal.code);
      return { error: refusal, id };
    }
  }
  return null;
}
