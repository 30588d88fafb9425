export const TOKEN_SCOPES = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write', 'decks:delete', 'public-decks:read'] as const;
export type Scope = (typeof TOKEN_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** Expiry choices offered to users, in days. */
export const TOKEN_EXPIRY_DAYS = [7, 30, 90, 365] as const;
export const DEFAULT_TOKEN_EXPIRY_DAYS = 90;
