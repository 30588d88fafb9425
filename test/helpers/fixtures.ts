// What the input-validation suites share: a server with one user holding one deck, and the
// assertion that a request was refused naming one field.
import assert from 'node:assert/strict';
import { type ApiResponse, type TestServer, type TestUser, createDeck, startServerWithUser } from './server.ts';

export interface DeckFixture { server: TestServer; user: TestUser; deckId: string; cardId: string }

/** A server, a user with every scope, and a deck of `cards` cards (`cardId` is its first). */
export async function startServerWithDeck(cards = 1, env: Record<string, string> = {}): Promise<DeckFixture> {
  const { server, user } = await startServerWithUser(env);
  const { deckId } = await createDeck(server, user.token, cards);
  const cardId = (await server.api('GET', `/decks/${deckId}`, { token: user.token })).body.cards[0].id as string;
  return { server, user, deckId, cardId };
}

export function assertSchemaInvalidAt(res: ApiResponse, field: string, label: string): void {
  assert.equal(res.status, 400, `${label}: ${res.text.slice(0, 300)}`);
  assert.equal(res.body.error.code, 'SCHEMA_INVALID', label);
  assert.equal(res.body.error.details.field, field, `${label}: ${res.text.slice(0, 300)}`);
}
