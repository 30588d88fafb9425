// What a credential may do. Personal access tokens carry any of these; OAuth grants the first four.
export const TOKEN_SCOPES = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write', 'decks:delete', 'public-decks:read'] as const;
export type Scope = (typeof TOKEN_SCOPES)[number];

/** DECISIONS "Tokens": OAuth grants carry the first four (and protected-resource metadata lists these). */
export const OAUTH_SCOPES = ['decks:read', 'decks:write', 'reviews:read', 'reviews:write'] as const satisfies readonly Scope[];
export type OauthScope = (typeof OAUTH_SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}
