// The tools of the deck lifecycle, public decks and search (DECISIONS "MCP": "Every API operation
// added later gets its tool"), plus `search` and `fetch` in the shape ChatGPT's connectors
// require. Each calls the service its API route calls; buildTools (tools.ts) binds them to routes.
import type { ToolAnnotations } from '@modelcontextprotocol/server';
import { exportDeckMarkdown } from '../../modules/deck-import/deck-markdown.ts';
import { deleteDeck, listTrash, restoreDeck } from '../../modules/decks/deck-trash.service.ts';
import type { CopiedDeck, PublicDeck, PublicDeckList } from '../../modules/decks/deck-search.schemas.ts';
import type { TrashList } from '../../modules/decks/deck-trash.schemas.ts';
import type { DeckSummary } from '../../modules/decks/decks.schemas.ts';
import { getDeckDetail } from '../../modules/decks/decks.service.ts';
import { copyPublicDeck, getPublicDeck, listPublicDecks } from '../../modules/decks/public-decks.service.ts';
import { connectorFetch, connectorSearch } from '../../modules/connector/connector.service.ts';
import type { ToolArguments } from './tool-schemas.ts';
import { deckLine, morePages, quote } from './summaries.ts';
import { idempotentWrite, type ToolOutcome, type ToolSpec } from './tools.ts';
import * as text from './deck-descriptions.ts';

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const ok = (body: object | Buffer, status = 200): ToolOutcome => ({ status, body, replayed: false });
const param = (args: ToolArguments, name: string) => args.params[name] as string;
const str = (value: unknown) => value as string | undefined;
// ChatGPT's connectors read a search or fetch result from its one text content, a JSON-encoded
// object, not from structuredContent: their text is the result itself rather than a summary line.
const connectorText = (body: object) => JSON.stringify(body);

export const DECK_TOOL_SPECS: readonly ToolSpec[] = [
  {
    name: 'delete_deck', operationId: 'deleteDeck', title: 'Delete a deck', description: text.DELETE_DECK,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    output: { type: 'object', properties: { deckId: { type: 'string' }, deleted: { type: 'boolean' } }, required: ['deckId', 'deleted'] },
    run: async ({ ctx, principal }, args) => {
      await deleteDeck(ctx, principal, { deckId: param(args, 'deckId'), ifMatch: args.ifMatch });
      return ok({ deckId: param(args, 'deckId'), deleted: true }, 204);
    },
    summary: (r: { deckId: string }) => `Deck ${r.deckId} is in the trash: missing from every list, read and search; restore_deck brings it back whole within 30 days`,
  },
  {
    name: 'restore_deck', operationId: 'restoreDeck', title: 'Restore a deleted deck', description: text.RESTORE_DECK,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    run: async ({ ctx, principal }, args) => ok(await restoreDeck(ctx, principal, { deckId: param(args, 'deckId') })),
    summary: (deck: DeckSummary) => `Deck ${deckLine(deck)} is back from the trash with its cards and review history`,
  },
  {
    name: 'list_trash', operationId: 'listTrash', title: 'List deleted decks', description: text.LIST_TRASH, annotations: READ,
    run: async ({ ctx, principal }, args) => ok(await listTrash(ctx, principal, { limit: args.query.limit as number, token: str(args.query.token) })),
    summary: (l: TrashList) => `${l.decks.length} decks in the trash${l.decks.length > 0 ? ', each restorable until its purgeAt' : ''}${morePages(l.nextToken)}`,
  },
  {
    name: 'export_deck_markdown', operationId: 'exportDeckMarkdown', title: 'Export a deck as markdown', description: text.EXPORT_DECK_MARKDOWN,
    annotations: READ,
    output: { type: 'object', properties: { deckId: { type: 'string' }, version: { anyOf: [{ type: 'string' }, { type: 'null' }] }, markdown: { type: 'string' } }, required: ['deckId', 'version', 'markdown'] },
    run: async ({ ctx, principal }, args) => {
      const deck = await getDeckDetail(ctx, principal, { deckId: param(args, 'deckId') });
      return ok({ deckId: deck.id, version: deck.version, markdown: exportDeckMarkdown(deck) });
    },
    summary: (r: { deckId: string; version: string | null; markdown: string }) => `Deck ${r.deckId} (version ${r.version ?? 'none'}) as deck markdown, ${r.markdown.length} characters, in structuredContent.markdown`,
  },
  {
    name: 'list_public_decks', operationId: 'listPublicDecks', title: 'List public decks', description: text.LIST_PUBLIC_DECKS, annotations: READ,
    run: async ({ ctx }, args) => ok(await listPublicDecks(ctx, {
      q: str(args.query.q), tag: str(args.query.tag), lang: str(args.query.lang), limit: args.query.limit as number, token: str(args.query.token),
    })),
    summary: (l: PublicDeckList) => `${l.decks.length} public decks${l.decks.length > 0 ? `: ${l.decks.slice(0, 5).map((d) => `${quote(d.title)} (${d.id})`).join(', ')}${l.decks.length > 5 ? ', ...' : ''}` : ''}${morePages(l.nextToken)}`,
  },
  {
    name: 'get_public_deck', operationId: 'getPublicDeck', title: 'Read a public deck', description: text.GET_PUBLIC_DECK, annotations: READ,
    run: async ({ ctx }, args) => ok(await getPublicDeck(ctx, { deckId: param(args, 'deckId') })),
    summary: (deck: PublicDeck) => `Public deck ${quote(deck.title)} (${deck.id}, ${deck.cardCount} cards); the cards are in structuredContent.cards; copy_public_deck makes it yours`,
  },
  {
    name: 'copy_public_deck', operationId: 'copyPublicDeck', title: 'Copy a public deck', description: text.COPY_PUBLIC_DECK,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (env, args, route) => {
      const outcome = await idempotentWrite(env, args, route, (beforeCommit) => copyPublicDeck(env.ctx, env.principal, { deckId: param(args, 'deckId') }, beforeCommit), () => 201);
      return { ...outcome, deckId: (outcome.body as { id?: string }).id ?? null };
    },
    summary: (deck: CopiedDeck) => `Copied into your decks as ${quote(deck.title)} (${deck.id}, private, ${deck.cardCount} cards), from public deck ${deck.copiedFrom}`,
  },
  {
    name: 'search', operationId: 'searchCards', title: 'Search decks and cards', description: text.SEARCH, annotations: READ,
    own: {
      input: { type: 'object', properties: { query: { type: 'string', minLength: 1, maxLength: 200, description: 'Words to find' } }, required: ['query'], additionalProperties: false },
      output: {
        type: 'object', required: ['results'],
        properties: { results: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, title: { type: 'string' }, url: { type: 'string' } }, required: ['id', 'title', 'url'] } } },
      },
    },
    run: async ({ ctx, principal }, args) => ok(await connectorSearch(ctx, principal, { query: args.query.query as string })),
    summary: connectorText,
  },
  {
    name: 'fetch', operationId: 'getDeck', title: 'Fetch a deck or card', description: text.FETCH, annotations: READ,
    own: {
      input: { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 100, description: 'A deck id (dck_...) or card id (crd_...) from search' } }, required: ['id'], additionalProperties: false },
      output: {
        type: 'object', required: ['id', 'title', 'text', 'url', 'metadata'],
        properties: { id: { type: 'string' }, title: { type: 'string' }, text: { type: 'string' }, url: { type: 'string' }, metadata: { type: 'object' } },
      },
    },
    run: async ({ ctx, principal }, args) => ok(await connectorFetch(ctx, principal, { id: args.query.id as string })),
    summary: connectorText,
  },
];
