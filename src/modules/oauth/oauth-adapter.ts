// oidc-provider's storage adapter over the project's database (oauth.repository.ts), so grants,
// clients and tokens survive restarts and are shared by every instance. Bearer values (access and
// refresh tokens, codes) are stored under their SHA-256: a copy of the database holds no usable
// token. oidc-provider checks expiry and consumption itself; rows past expiry are also ignored here
// and purged hourly.
import { createHash } from 'node:crypto';
import type { Db } from '../../db/database.ts';
import {
  consumeEntity, destroyByGrant, destroyEntity, findEntity, findEntityByUid, upsertEntity, type OauthEntity,
} from './oauth.repository.ts';

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
export function oauthAdapter(database: Db): new (model: string) => object {
  return class OauthAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      await upsertEntity(database, {
        model: this.model,
        id: storedId(this.model, id),
        payload: JSON.stringify(payload),
        // A grant is its own grant, so revoking by grant id takes it along.
        grantId: this.model === 'Grant' ? id : text(payload.grantId),
        accountId: text(payload.accountId),
        uid: text(payload.uid),
        expiresAt: expiresIn === undefined ? null : new Date(Date.now() + expiresIn * 1000).toISOString(),
      });
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
