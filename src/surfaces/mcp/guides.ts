// The MCP server's resources and prompt: the deck markdown format and the card content rules (the
// documents in docs/, read once at start), and a prompt that turns a topic into a deck.
import { readFile } from 'node:fs/promises';
import type { GetPromptResult, Resource } from '@modelcontextprotocol/server';

export interface Guide extends Resource {
  readonly text: string;
}

const DOCS = new URL('../../../docs/', import.meta.url);

export async function loadGuides(): Promise<ReadonlyMap<string, Guide>> {
  const guides: Guide[] = [
    {
      uri: 'flashdeck://guides/deck-markdown',
      name: 'deck-markdown',
      title: 'Deck markdown format',
      description: 'How to write a whole deck as one markdown document (import_deck markdown): front matter, title, cards, and every card field.',
      mimeType: 'text/markdown',
      text: await readFile(new URL('deck-markdown.md', DOCS), 'utf8'),
    },
    {
      uri: 'flashdeck://guides/content-rules',
      name: 'content-rules',
      title: 'Card content rules',
      description: 'How card sides are rendered (text, markdown, html, latex), card types, and the soft targets for good cards.',
      mimeType: 'text/markdown',
      text: await readFile(new URL('content-rules.md', DOCS), 'utf8'),
    },
  ];
  return new Map(guides.map((g) => [g.uri, g]));
}

/** The prompt, with its arguments as a JSON Schema (prompt arguments are strings). */
export const DECK_PROMPT = {
  name: 'deck_from_topic',
  title: 'Make a deck about a topic',
  description: 'Write a flashcard deck about a topic in deck markdown and import it.',
  argsSchema: {
    type: 'object',
    properties: {
      topic: { type: 'string', description: 'What the deck is about' },
      cards: { type: 'string', description: 'How many cards (1 to 250; default 20)' },
      lang: { type: 'string', description: 'Language code of the cards, e.g. en, fr, pt-BR (default en)' },
      level: { type: 'string', description: 'Who it is for, e.g. beginner, exam revision' },
    },
    required: ['topic'],
  },
} as const;

/** Why the prompt cannot be made from `args` (a required argument missing or blank), or null. */
export function deckPromptRefusal(args: Partial<Record<string, unknown>>): string | null {
  for (const name of DECK_PROMPT.argsSchema.required) {
    const value = args[name];
    if (typeof value !== 'string' || value.trim() === '') return `The ${name} argument is required`;
  }
  return null;
}

export function deckPrompt(args: Partial<Record<string, string>>, guides: ReadonlyMap<string, Guide>): GetPromptResult {
  const topic = (args.topic ?? '').trim();
  const count = Math.min(250, Math.max(1, Number.parseInt(args.cards ?? '', 10) || 20));
  const lang = args.lang?.trim() || 'en';
  const level = args.level?.trim();
  const instructions = [
    `Make a flashcard deck of about ${count} cards about ${topic}${level ? ` for ${level}` : ''}, in the language "${lang}".`,
    'Write it as one deck markdown document as the attached format describes: front matter with version 1, lang and visibility private, a "# Title" line, then the cards separated by "---" lines, each with "## Front" and "## Back".',
    'Follow the attached content rules: one fact per card, front up to about 80 characters, back up to about 350, tables at most 4 x 6, lists at most 5 items; markdown for formatted text, latex for equation-only sides; set cardType, subject and topic in a card meta block where they help.',
    'Then call import_deck with the document as markdown and a new idempotencyKey (reuse that key if you must retry). If the result has warnings, fix those cards with update_card. Tell the user the previewUrl.',
  ].join('\n\n');
  const embedded = [...guides.values()].map((g) => ({
    role: 'user' as const,
    content: { type: 'resource' as const, resource: { uri: g.uri, mimeType: g.mimeType ?? 'text/markdown', text: g.text } },
  }));
  return {
    description: `A deck about ${topic}`,
    messages: [...embedded, { role: 'user', content: { type: 'text', text: instructions } }],
  };
}
