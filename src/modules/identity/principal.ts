// Who is calling. Services need only the acting user (Actor); the per-call policy
// (src/policy/) works with the whole Principal a verifier made from a presented credential.
import type { Scope } from './scopes.ts';

/** The user a service acts for: every ownership rule is by user. */
export interface Actor {
  readonly userId: string;
}

/** How the credential was issued: a personal access token, or an OAuth access token. */
export type CredentialSource = 'pat' | 'oauth';

/** A caller authenticated by a bearer credential. */
export interface Principal extends Actor {
  readonly source: CredentialSource;
  /** The token's id (`tok_...`) for a PAT, the grant's id for OAuth: the activity log's key. */
  readonly credentialId: string;
  /** The token's name, or the OAuth client's name. */
  readonly name: string;
  /** The token's prefix, shown to the user to tell tokens apart. */
  readonly prefix: string;
  readonly scopes: readonly Scope[];
  /** The rate-limit bucket the credential's calls count in: one per PAT, one per OAuth grant. */
  readonly bucket: string;
}
