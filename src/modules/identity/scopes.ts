// What a credential may do. Personal access tokens carry any of these; OAuth grants the first four.
export const TOKEN_SCOPES = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write', 'decks:delete', 'public-decks:read'] as const;
export type Scope = (typeof TOKEN_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}
