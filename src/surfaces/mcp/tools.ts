// The tools of DECISIONS "MCP" (deck lifecycle, public decks, search and fetch in deck-tools.ts): one per API operation, each calling the service its API
// route calls (no rule is written here), with the route's schemas (tool-schemas.ts) and a
// description written for a model. A tool's result is its route's response body, with a one-line
// `summary` of it for the transcript (summaries.ts).
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import type { BeforeCommit, ServiceContext } from '../../context.ts';
import type { ErrorCode } from '../../errors.ts';
import { appendCards, deleteDeckCard, getDeckCard, moveDeckCard, patchDeckCard, patchDeckCards } from '../../modules/cards/cards.service.ts';
import { importDeck, type ImportSource } from '../../modules/deck-import/deck-import.service.ts';
import type {
  AppendCardsResult, BulkCardPatch, Capacity, CardDto, CardInput, CardPatch, CardsPatchResult, DeckList, DeckPatch, DeckSummary,
  DeleteCardResult, ImportBody, ImportResult, MoveCardResult,
} from '../../modules/decks/decks.schemas.ts';
import { getCapacity, getDeckBody, listDecks, patchDeck } from '../../modules/decks/decks.service.ts';
import type { Principal } from '../../modules/identity/principal.ts';
import type { AnswerBody, AnswerResult, Due, Schedule, Session, SessionList, SessionStatus, StartSessionBody } from '../../modules/reviews/reviews.schemas.ts';
import { getSchedule, listDue, listSessions } from '../../modules/reviews/review-overview.service.ts';
import { answerCard, completeSession, getSession, startSession } from '../../modules/reviews/reviews.service.ts';
import { whoAmI, type WhoAmI } from '../../modules/tokens/whoami.ts';
import { requestHash, storedBody, type IdempotentCall, type StoredResponse } from '../../policy/idempotency.ts';
import type { Policy } from '../../policy/policy.ts';
import type { ApiRoute } from '../api/api.surface.ts';
import { errorsParagraph } from './advice.ts';
import * as text from './descriptions.ts';
import { deckLine, morePages, quote, sessionLine } from './summaries.ts';
import { ownToolSchemas, toolSchemas, type ToolArguments, type ToolSchemas } from './tool-schemas.ts';
import { DECK_TOOL_SPECS } from './deck-tools.ts';

/** What a tool's run produced: the route's status and body (a deck read as its rendered bytes). */
export interface ToolOutcome {
  readonly status: number;
  readonly body: object | Buffer;
  readonly replayed: boolean;
  /** The deck the call touched, when its arguments name none (an import); for the activity log. */
  readonly deckId?: string | null;
}

export interface ToolEnv {
  readonly ctx: ServiceContext;
  readonly policy: Policy;
  readonly principal: Principal;
  /** Values of the shared keys the tool's `reads` named, read with the call's admission. */
  readonly values: readonly (string | null)[];
}

export interface ToolSpec {
  readonly name: string;
  readonly operationId: string;
  readonly title: string;
  readonly description: string;
  readonly annotations: ToolAnnotations;
  readonly requiredArgs?: readonly string[];
  readonly markdown?: string;
  /** import_deck's csv argument (its description). */
  readonly csv?: string;
  /** The success body's schema, for a route whose success is no JSON object (204, markdown). */
  readonly output?: Record<string, unknown>;
  /** Arguments and result of the tool's own (search, fetch): the route gives scope and error codes. */
  readonly own?: { readonly input: Record<string, unknown> & { type: 'object' }; readonly output: Record<string, unknown> };
  /** Shared keys read with the admission (a deck's published version). */
  readonly reads?: (ctx: ServiceContext, args: Record<string, unknown>) => readonly string[];
  readonly run: (env: ToolEnv, args: ToolArguments, route: ApiRoute) => Promise<ToolOutcome>;
  /** The line beside the result (its body, typed by the tool): every tool says what it did. */
  readonly summary: (body: never) => string;
}

export interface Tool extends ToolSpec {
  readonly route: ApiRoute;
  readonly schemas: ToolSchemas;
}

const ok = (body: object | Buffer, status = 200): ToolOutcome => ({ status, body, replayed: false });

const param = (args: ToolArguments, name: string) => args.params[name] as string;

/** A write run through the policy's idempotency runner, hashed as the API route hashes it. */
export async function idempotentWrite<R extends object>(
  env: ToolEnv, args: ToolArguments, route: ApiRoute,
  write: (beforeCommit: BeforeCommit<R> | undefined) => Promise<R>,
  status: (result: R) => number,
): Promise<ToolOutcome> {
  const call: IdempotentCall | null = args.idempotencyKey === undefined || route.idempotency === null ? null : {
    operation: route.idempotency,
    key: args.idempotencyKey,
    requestHash: requestHash(route.method, route.url, args.params, args.query, args.body),
  };
  const outcome = await env.policy.idempotent(env.principal, call, write, (result: R): StoredResponse => ({
    status: status(result), body: storedBody(call, result),
  }));
  // Our own serialisation (stored or fresh): nothing with a one-backslash key is ever stored.
  return { status: outcome.status, body: JSON.parse(outcome.body) as object, replayed: outcome.replayed };
}

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const SPECS: readonly ToolSpec[] = [
  {
    name: 'whoami', operationId: 'whoami', title: 'Who am I', description: text.WHOAMI, annotations: READ,
    run: async ({ principal }) => ok(whoAmI(principal)),
    summary: (who: WhoAmI) => `Token ${quote(who.token.name)} (${who.token.prefix}, ${who.source}) of user ${who.userId}; scopes: ${who.scopes.join(', ') || 'none'}`,
  },
  {
    name: 'get_capacity', operationId: 'getDeckCapacity', title: 'Deck capacity', description: text.GET_CAPACITY, annotations: READ,
    run: async ({ ctx, principal }) => ok(await getCapacity(ctx, principal)),
    summary: (c: Capacity) => `${c.current_decks} decks of ${c.deck_limit ?? 'unlimited'}; ${c.can_create ? 'another deck can be created' : 'no new deck can be created'}`,
  },
  {
    name: 'list_decks', operationId: 'listDecks', title: 'List decks', description: text.LIST_DECKS, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await listDecks(ctx, principal, {
      limit: args.query.limit as number, token: args.query.token as string | undefined,
      q: args.query.q as string | undefined, tag: args.query.tag as string | undefined,
    })),
    summary: (list: DeckList) => {
      const shown = list.items.slice(0, 5).map(deckLine).join('; ');
      const more = list.items.length > 5 ? `; and ${list.items.length - 5} more` : '';
      return `${list.items.length} decks${list.items.length > 0 ? `: ${shown}${more}` : ''}${morePages(list.nextToken)}`;
    },
  },
  {
    name: 'get_deck', operationId: 'getDeck', title: 'Read a deck', description: text.GET_DECK, annotations: READ,
    reads: (ctx, args) => {
      const key = typeof args.deckId === 'string' ? ctx.deckVersions.keyOf(args.deckId) : null;
      return key === null ? [] : [key];
    },
    // As the API route: the board knows the version from the admission's read (Redis) or from
    // this process's memory (SQLite), so a held body needs no database read.
    run: async ({ ctx, principal, values }, args) => {
      const deckId = param(args, 'deckId');
      return ok(await getDeckBody(ctx, principal, { deckId, published: ctx.deckVersions.versionOf(deckId, values[0] ?? null) }));
    },
    summary: (deck: DeckSummary) => `Deck ${deckLine(deck)}; the cards are in structuredContent.cards`,
  },
  {
    name: 'import_deck', operationId: 'importDeck', title: 'Create or replace a deck', description: text.IMPORT_DECK,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    markdown: text.MARKDOWN_ARG,
    csv: text.CSV_ARG,
    run: async (env, args, route) => {
      const outcome = await idempotentWrite(env, args, route, (beforeCommit) => importDeck(env.ctx, env.principal, {
        source: importSource(args.body, args.query),
        mode: args.query.mode as 'create' | 'update',
        targetDeckId: args.query.targetDeckId as string | undefined,
        ifMatch: args.ifMatch,
      }, beforeCommit), (result: ImportResult) => (result.mode === 'create' ? 201 : 200));
      return { ...outcome, deckId: (outcome.body as ImportResult).deckId };
    },
    summary: (r: ImportResult) => {
      const warnings = r.warnings?.length ?? 0;
      return `${r.mode === 'create' ? 'Created' : 'Updated'} deck ${quote(r.title ?? '')} (${r.deckId}) with ${r.cardCount} cards, version ${r.version ?? 'none'}` +
        `${warnings > 0 ? `; ${warnings} warnings in structuredContent.warnings` : ''}; view it at ${r.previewUrl}`;
    },
  },
  {
    name: 'append_cards', operationId: 'appendCards', title: 'Append cards', description: text.APPEND_CARDS,
    // With its required idempotencyKey, the same call again replays the first one's result.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    requiredArgs: ['idempotencyKey'],
    run: (env, args, route) => idempotentWrite(env, args, route, (beforeCommit) => appendCards(env.ctx, env.principal, {
      deckId: param(args, 'deckId'), cards: (args.body as { cards: CardInput[] }).cards, ifMatch: args.ifMatch,
    }, beforeCommit), () => 200),
    summary: (r: AppendCardsResult) => `Appended ${r.addedCount} cards to deck ${r.deckId}: now ${r.cardCount} cards, version ${r.version ?? 'none'}`,
  },
  {
    name: 'update_deck', operationId: 'updateDeck', title: 'Update deck metadata', description: text.UPDATE_DECK,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await patchDeck(ctx, principal, {
      deckId: param(args, 'deckId'), patch: args.body as DeckPatch, ifMatch: args.ifMatch,
    })),
    summary: (deck: DeckSummary) => `Deck ${deckLine(deck)} as it now is`,
  },
  {
    name: 'update_card', operationId: 'updateCard', title: 'Update one card', description: text.UPDATE_CARD,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await patchDeckCard(ctx, principal, {
      deckId: param(args, 'deckId'), cardId: param(args, 'cardId'), patch: args.body as CardPatch, ifMatch: args.ifMatch,
    })),
    summary: (card: CardDto) => `Card ${card.id} (position ${card.order}) as it now is`,
  },
  {
    name: 'start_review', operationId: 'startReviewSession', title: 'Start a review session', description: text.START_REVIEW,
    // Without resume, an active session of the deck is abandoned and a new one starts.
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async (env, args, route) => {
      const body = args.body as StartSessionBody;
      const outcome = await idempotentWrite(env, args, route, (beforeCommit) => startSession(env.ctx, env.principal, {
        deckId: body.deckId, resume: body.resume === true, relearn: body.relearn === true,
      }, beforeCommit), () => 201);
      return { ...outcome, deckId: body.deckId };
    },
    summary: (s: Session) => `${sessionLine(s)}${s.next !== null ? `; next card ${s.next.id} (in structuredContent.next)` : s.cards.length > 0 ? '' : '; nothing is due'}`,
  },
  {
    name: 'get_review', operationId: 'getReviewSession', title: 'Read a review session', description: text.GET_REVIEW, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await getSession(ctx, principal, { sessionId: param(args, 'sessionId') })),
    summary: sessionLine,
  },
  {
    name: 'answer_card', operationId: 'answerReviewCard', title: 'Answer a card', description: text.ANSWER_CARD,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await answerCard(ctx, principal, { sessionId: param(args, 'sessionId'), ...(args.body as AnswerBody) })),
    summary: (a: AnswerResult) =>
      `Recorded ${a.answer.rating} for card ${a.answer.cardId}; ${a.progress.answered} of ${a.progress.total} answered, ${a.progress.remaining} remaining; next due ${a.nextDue}` +
      (a.next === null ? '' : `; next card ${a.next.id}`),
  },
  {
    name: 'get_card', operationId: 'getCard', title: 'Read one card', description: text.GET_CARD, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await getDeckCard(ctx, principal, { deckId: param(args, 'deckId'), cardId: param(args, 'cardId') })),
    summary: (card: CardDto) => `Card ${card.id} at position ${card.order}`,
  },
  {
    name: 'delete_card', operationId: 'deleteCard', title: 'Delete one card', description: text.DELETE_CARD,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await deleteDeckCard(ctx, principal, {
      deckId: param(args, 'deckId'), cardId: param(args, 'cardId'), ifMatch: args.ifMatch,
    })),
    summary: (r: DeleteCardResult) => `Deleted; deck ${r.deckId} now has ${r.cardCount} cards, version ${r.version ?? 'none'}`,
  },
  {
    name: 'move_card', operationId: 'moveCard', title: 'Move one card', description: text.MOVE_CARD,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await moveDeckCard(ctx, principal, {
      deckId: param(args, 'deckId'), cardId: param(args, 'cardId'), order: (args.body as { order: number }).order, ifMatch: args.ifMatch,
    })),
    summary: (r: MoveCardResult) => `Card ${r.card.id} is now at position ${r.card.order}; deck version ${r.version ?? 'none'}`,
  },
  {
    name: 'update_cards', operationId: 'updateCards', title: 'Update many cards', description: text.UPDATE_CARDS,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: (env, args, route) => idempotentWrite(env, args, route, (beforeCommit) => patchDeckCards(env.ctx, env.principal, {
      deckId: param(args, 'deckId'), cards: (args.body as { cards: BulkCardPatch[] }).cards, ifMatch: args.ifMatch,
    }, beforeCommit), () => 200),
    summary: (r: CardsPatchResult) => `${r.cards.length} cards of deck ${r.deckId} as they now are; version ${r.version ?? 'none'}`,
  },
  {
    name: 'list_due', operationId: 'listDue', title: 'What is due', description: text.LIST_DUE, annotations: READ,
    run: async ({ ctx, principal }) => ok(await listDue(ctx, principal)),
    summary: (d: Due) => `${d.total.due} cards due and ${d.total.new} new across ${d.decks.length} decks`,
  },
  {
    name: 'get_schedule', operationId: 'getDeckSchedule', title: "A deck's schedule", description: text.GET_SCHEDULE, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await getSchedule(ctx, principal, { deckId: param(args, 'deckId') })),
    summary: (s: Schedule) => `${s.cards.length} cards of deck ${s.deckId}; ${s.cards.filter((c) => c.state === 'new').length} never reviewed`,
  },
  {
    name: 'list_reviews', operationId: 'listReviewSessions', title: 'List review sessions', description: text.LIST_REVIEWS, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await listSessions(ctx, principal, {
      deckId: args.query.deckId as string | undefined, status: args.query.status as SessionStatus | undefined,
      limit: args.query.limit as number, token: args.query.token as string | undefined,
    })),
    summary: (l: SessionList) => `${l.sessions.length} sessions${morePages(l.nextToken)}`,
  },
  {
    name: 'complete_review', operationId: 'completeReviewSession', title: 'Complete a review session', description: text.COMPLETE_REVIEW,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await completeSession(ctx, principal, { sessionId: param(args, 'sessionId') })),
    summary: (s: Session) => {
      const accuracy = s.stats?.accuracy;
      return `${sessionLine(s)}${accuracy === null || accuracy === undefined ? '' : `; accuracy ${Math.round(accuracy * 100)}%`}`;
    },
  },
  ...DECK_TOOL_SPECS,
];

/** The error codes a route documents (its error responses' `code` enums). */
export function routeErrorCodes(schemas: ToolSchemas): ErrorCode[] {
  const codes: ErrorCode[] = [];
  for (const [status, schema] of Object.entries(schemas.responses)) {
    if (Number(status) < 400) continue;
    const code = (schema as { properties?: { error?: { properties?: { code?: { enum?: ErrorCode[] } } } } }).properties?.error?.properties?.code?.enum;
    codes.push(...(code ?? []));
  }
  return codes;
}

/** The tools, bound to the API's routes as registered. */
export function buildTools(routes: ReadonlyMap<string, ApiRoute>): ReadonlyMap<string, Tool> {
  const tools = new Map<string, Tool>();
  for (const spec of SPECS) {
    const route = routes.get(spec.operationId);
    if (route === undefined) throw new Error(`MCP tool ${spec.name}: no API route ${spec.operationId}`);
    const schemas = spec.own === undefined
      ? toolSchemas(route, { requiredArgs: spec.requiredArgs, markdown: spec.markdown, csv: spec.csv, output: spec.output })
      : ownToolSchemas(route, spec.own.input, spec.own.output);
    const scope = route.scope === null ? 'any valid token' : `scope ${route.scope}`;
    const description = `${spec.description}\n\nNeeds ${scope}.${errorsParagraph(routeErrorCodes(schemas))}`;
    tools.set(spec.name, { ...spec, description, route, schemas });
  }
  return tools;
}

/** import_deck's body as the import service takes it: JSON, markdown text, or `{csv}`. */
function importSource(body: unknown, query: Record<string, unknown>): ImportSource {
  if (typeof body === 'string') return { format: 'markdown', text: body };
  if (typeof body === 'object' && body !== null && typeof (body as { csv?: unknown }).csv === 'string' && Object.keys(body).length === 1) {
    return { format: 'csv', text: (body as { csv: string }).csv, title: query.title as string | undefined, lang: query.lang as string | undefined };
  }
  return { format: 'json', body: body as ImportBody };
}
