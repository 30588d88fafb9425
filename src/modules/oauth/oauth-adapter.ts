// oidc-provider's storage adapter over the project's database (oauth.repository.ts), so grants,
// clients and tokens survive restarts and are shared by every instance. Bearer values (access and
// refresh tokens, codes) are stored under their SHA-256: a copy of the database holds no usable
// token. oidc-provider checks expiry and consumption itself; rows past expiry are also ignored here
// and purged hourly. A registered client is kept only once used: its row expires
// UNUSED_CLIENT_TTL_MS after registration unless a person allows it first (DECISIONS: a
// registration never used within 24 hours is removed).
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import {
  consumeEntity, destroyByGrant, destroyEntity, findEntity, findEntityByUid, keepClient, upsertEntity, type OauthEntity,
} from './oauth.repository.ts';

/** How long a dynamically registered client is kept if no person allows it. */
export const UNUSED_CLIENT_TTL_MS = 24 * 3_600_000;

/** Models whose id is a bearer value. */
const SECRET_IDS = new Set([
  'AccessToken', 'AuthorizationCode', 'RefreshToken', 'ClientCredentials', 'RegistrationAccessToken',
  'DeviceCode', 'BackchannelAuthenticationRequest', 'PushedAuthorizationRequest',
]);

export function storedId(model: string, id: string): string {
  return SECRET_IDS.has(model) ? createHash('sha256').update(id).digest('base64url') : id;
}

type Payload = Record<string, unknown>;

function live(found: OauthEntity | null, now: number): Payload | undefined {
  if (found === null) return undefined;
  if (found.expiresAt !== null && Date.parse(found.expiresAt) <= now) return undefined;
  return found.consumedAt === null ? found.payload : { ...found.payload, consumed: Math.floor(Date.parse(found.consumedAt) / 1000) };
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** The Adapter class oidc-provider instantiates once per model name. */
export function oauthAdapter(database: Db, clock: Clock): new (model: string) => object {
  return class OauthAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      // A client is written at its registration only (updates are not offered): it starts unused.
      // The app's clock, so that a test can let a day pass.
      const unusedUntil = this.model === 'Client' ? new Date(clock.now().getTime() + UNUSED_CLIENT_TTL_MS).toISOString() : undefined;
      await upsertEntity(database, {
        model: this.model,
        id: storedId(this.model, id),
        payload: JSON.stringify(payload),
        // A grant is its own grant, so revoking by grant id takes it along.
        grantId: this.model === 'Grant' ? id : text(payload.grantId),
        accountId: text(payload.accountId),
        uid: text(payload.uid),
        expiresAt: unusedUntil ?? (expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString()),
      });
      // A grant is a person's Allow: its client is used, and kept from now on.
      if (this.model === 'Grant' && typeof payload.clientId === 'string') await keepClient(database, payload.clientId);
    }

    async find(id: string): Promise<Payload | undefined> {
      return live(await findEntity(database, this.model, storedId(this.model, id)), Date.now());
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const found = await findEntityByUid(database, this.model, uid);
      return found === null ? undefined : live(found.entity, Date.now());
    }

    findByUserCode(): Promise<undefined> {
      return Promise.resolve(undefined);
    }

    async consume(id: string): Promise<void> {
      await consumeEntity(database, this.model, storedId(this.model, id), new Date().toISOString());
    }

    async destroy(id: string): Promise<void> {
      await destroyEntity(database, this.model, storedId(this.model, id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await destroyByGrant(database, grantId, this.model);
    }
  };
}
