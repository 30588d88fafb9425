// The calling principal as GET /whoami and the MCP tool `whoami` describe it.
import { Type, type Static } from 'typebox';
import type { Principal } from '../identity/principal.ts';
import { TOKEN_SCOPES } from '../identity/scopes.ts';

export const WhoAmISchema = Type.Object({
  userId: Type.String(),
  scopes: Type.Array(Type.Enum([...TOKEN_SCOPES])),
  source: Type.Enum(['pat', 'oauth'], { description: '`pat` for a personal access token, `oauth` (extension) for an OAuth access token' }),
  token: Type.Object({
    id: Type.String(),
    name: Type.String(),
    prefix: Type.String(),
  }, { additionalProperties: false }),
}, { additionalProperties: false });

export type WhoAmI = Static<typeof WhoAmISchema>;

export function whoAmI(p: Principal): WhoAmI {
  return { userId: p.userId, scopes: [...p.scopes], source: p.source, token: { id: p.credentialId, name: p.name, prefix: p.prefix } };
}
