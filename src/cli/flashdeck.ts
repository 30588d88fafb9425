// The `flashdeck` command: operator tasks on the same store and through the same services as
// the server. It may run while the server runs (SQLite WAL, or PostgreSQL).
import { parseArgs } from 'node:util';
import { systemClock } from '../clock.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { migrateToLatest, openStore, type Db } from '../db/database.ts';
import { listActivityOfToken } from '../modules/activity/activity.repository.ts';
import { getOrCreateSecret } from '../modules/system/settings.repository.ts';
import { createToken, listTokens, requireToken, revokeToken } from '../modules/tokens/tokens.service.ts';
import { addUser } from '../modules/users/users.service.ts';
import { UsageError } from '../usage-error.ts';

const USAGE = `usage:
  flashdeck users add EMAIL
  flashdeck tokens create --user EMAIL --name NAME --scopes a,b [--expires-days 7|30|90|365]
  flashdeck tokens list --user EMAIL
  flashdeck tokens revoke TOKEN_ID
  flashdeck tokens activity TOKEN_ID [--limit N]`;

type Out = { stdout: (line: string) => void };

function option(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required\n${USAGE}`);
  return value;
}

function positional(list: string[], index: number, what: string): string {
  const value = list[index];
  if (value === undefined) throw new UsageError(`${what} is required\n${USAGE}`);
  return value;
}

async function run(db: Db, hashKey: () => Promise<string>, argv: string[], out: Out): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: 'string' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      'expires-days': { type: 'string' },
      limit: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action] = positionals;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  if (values.help || command === '') {
    out.stdout(USAGE);
    return;
  }
  switch (command) {
    case 'users add': {
      const user = await addUser(db, systemClock, positional(positionals, 2, 'EMAIL'));
      out.stdout(user.id);
      return;
    }
    case 'tokens create': {
      const days = values['expires-days'];
      if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--expires-days must be a whole number');
      const { token } = await createToken(db, systemClock, await hashKey(), {
        email: option(values, 'user'),
        name: option(values, 'name'),
        scopes: option(values, 'scopes').split(','),
        expiresDays: days === undefined ? undefined : Number(days),
      });
      out.stdout(token);
      return;
    }
    case 'tokens list': {
      for (const t of await listTokens(db, option(values, 'user'))) {
        const status = t.revokedAt ? 'revoked' : t.expiresAt && Date.parse(t.expiresAt) <= Date.now() ? 'expired' : 'active';
        out.stdout([t.id, t.name, t.prefix, t.scopes.join(','), status, `created ${t.createdAt}`, `expires ${t.expiresAt ?? 'never'}`].join('\t'));
      }
      return;
    }
    case 'tokens revoke': {
      const id = positional(positionals, 2, 'TOKEN_ID');
      await revokeToken(db, systemClock, id);
      out.stdout(`revoked ${id}`);
      return;
    }
    case 'tokens activity': {
      const id = positional(positionals, 2, 'TOKEN_ID');
      await requireToken(db, id);
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
      for (const e of await listActivityOfToken(db, id, limit)) {
        out.stdout([e.at, e.method, e.route, e.deckId ?? '-', e.status, `${e.durationMs}ms`, e.clientIp ?? '-', e.userAgent ?? '-', e.requestId].join('\t'));
      }
      return;
    }
    default:
      throw new UsageError(`unknown command: ${command}\n${USAGE}`);
  }
}

export async function main(argv: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  let store;
  try {
    const config = loadConfig(env);
    store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await migrateToLatest(store.db);
    const db = store.db;
    await run(db, async () => config.tokenHashKey ?? getOrCreateSecret(db, 'token_hash_key'), argv, {
      stdout: (line) => process.stdout.write(`${line}\n`),
    });
    return 0;
  } catch (error) {
    const message = error instanceof UsageError || error instanceof ConfigError || (error instanceof Error && error.name === 'TypeError' && 'code' in error)
      ? error.message
      : `failed: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`flashdeck: ${message}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}
