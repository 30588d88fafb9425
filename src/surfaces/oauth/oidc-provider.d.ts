// The parts of oidc-provider 9 (which ships no types) that src/surfaces/oauth uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcClient {
    readonly clientId: string;
    readonly clientName?: string;
    readonly redirectUris: readonly string[];
    readonly scope?: string;
    grantTypeAllowed(type: string): boolean;
  }

  export interface Grant {
    readonly jti: string;
    addResourceScope(resource: string, scope: string): void;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface InteractionDetails {
    readonly uid: string;
    readonly params: Record<string, unknown>;
    readonly prompt: { readonly name: string; readonly details: Record<string, unknown> };
    readonly grantId?: string;
  }

  export class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    proxy: boolean;
    readonly Grant: new (init: { accountId: string; clientId: string }) => Grant;
    readonly Client: { find(id: string): Promise<OidcClient | undefined> };
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): this;
  }

  export class Check {
    constructor(reason: string, description: string, check: (ctx: OidcContext) => boolean | Promise<boolean>);
    readonly reason: string;
  }

  export interface OidcContext {
    readonly oidc: {
      readonly result?: Record<string, unknown>;
      readonly client?: OidcClient;
      readonly params?: Record<string, unknown>;
      readonly entities: { readonly RefreshToken?: { readonly resourceIndicators: ReadonlySet<string> } };
    };
  }

  /** The Koa context of provider.use() middleware (the parts used). */
  export interface KoaContext {
    readonly method: string;
    readonly path: string;
    query: Record<string, string | string[] | undefined>;
    /** Koa's request: its `host` getter reads the Host header. */
    readonly request: object;
  }

  export const interactionPolicy: {
    Check: typeof Check;
    base(): { get(name: string): { checks: { add(check: Check): void } } | undefined } & unknown[];
  };

  export const errors: Record<string, new (description?: string) => Error> & {
    InvalidTarget: new (description?: string) => Error;
    InvalidClientMetadata: new (description: string) => Error;
  };

  export default Provider;
}
