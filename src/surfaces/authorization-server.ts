// The authorization server (oidc-provider, src/surfaces/oauth/provider.ts) made by the first request
// that needs it: an OAuth endpoint, the RFC 8414 metadata, a consent page. oidc-provider and what it
// loads are about 8 MB of heap and 25 MB of RSS (docs/performance.md) that an instance whose
// integrations all use personal access tokens never needs. Tokens it issued are checked without it
// (modules/oauth/oauth-verifier.ts reads the database), so an API call never waits for it.
// It sits beside the surfaces, not in oauth/: the OAuth surface, the web pages (sign-in, consent)
// and app.ts (the RFC 8414 metadata) share it, and no surface imports another's folder.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Provider from 'oidc-provider';
import { loadOnce, type LoadOnce } from '../load-once.ts';

export const OAUTH_PREFIX = '/oauth';

/** oidc-provider's own handler of a Node request (its Koa app). */
export type ProviderHandler = (req: IncomingMessage, res: ServerResponse) => void;

export class AuthorizationServer {
  readonly #made: LoadOnce<{ provider: Provider; handler: ProviderHandler }>;

  /**
   * `create` loads oidc-provider and configures it; called once, again only if it failed.
   * `onError` hears of each failure (the request that asked is answered 500 without the cause).
   */
  constructor(create: () => Promise<Provider>, onError: (error: unknown) => void = () => {}) {
    this.#made = loadOnce(async () => {
      const provider = await create();
      return { provider, handler: provider.callback() };
    }, onError);
  }

  /** The provider (interaction details and results, its Client and Grant models). */
  async provider(): Promise<Provider> {
    return (await this.#made.get()).provider;
  }

  /** Its handler of a Node request, for a route that hands the request over. */
  async handler(): Promise<ProviderHandler> {
    return (await this.#made.get()).handler;
  }
}
