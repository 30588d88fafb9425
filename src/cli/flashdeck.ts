// The `flashdeck` command: operator tasks on the same store and through the same services as
// the server. It may run while the server runs (SQLite WAL, or PostgreSQL).
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { systemClock } from '../clock.ts';
import { ConfigError, loadConfig } from '../config.ts';
import type { ServiceContext } from '../context.ts';
import { migrateToLatest, openStore } from '../db/database.ts';
import { isAppError } from '../errors.ts';
import { listTokenActivity } from '../modules/activity/activity.service.ts';
import { TOKEN_SCOPES } from '../modules/identity/scopes.ts';
import { createToken, listTokens, revokeToken, tokenStatus } from '../modules/tokens/tokens.service.ts';
import { addUser, getUserByEmail, setPassword } from '../modules/users/users.service.ts';
import { createServiceContext, mediaSettings } from '../services.ts';
import { DECKS_OPTIONS, DECKS_USAGE, runDecksCommand } from './decks.ts';
import { FORMAT_OPTIONS, FORMAT_USAGE, runFormatCommand } from './formats.ts';

/** A mistake in the command line itself: printed as one line on stderr, exit code 1. */
class UsageError extends Error {}

const USAGE = `usage:
  flashdeck users add EMAIL
  flashdeck users set-password EMAIL   (reads the password from stdin, one line)
  flashdeck tokens create --user EMAIL --name NAME --scopes a,b [--expires-days 7|30|90|365]
  flashdeck tokens list --user EMAIL
  flashdeck tokens revoke TOKEN_ID
  flashdeck tokens activity TOKEN_ID [--limit N]
${FORMAT_USAGE}
${DECKS_USAGE}
  flashdeck --version | --help

scopes: ${TOKEN_SCOPES.join(', ')}
It works on the store the server uses: DATA_DIR (default ./data) or DATABASE_URL, as for npm start.`;

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const OPTIONS = {
  user: { type: 'string' },
  name: { type: 'string' },
  scopes: { type: 'string' },
  'expires-days': { type: 'string' },
  limit: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
  ...FORMAT_OPTIONS,
  ...DECKS_OPTIONS,
} as const satisfies ParseArgsConfig['options'];

type Parsed = ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; options: typeof OPTIONS }>>;

/** The command line, read before anything is opened; a mistake in it is a UsageError. */
function parseCommandLine(argv: string[]): Parsed {
  try {
    return parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    // parseArgs' own refusals (an unknown option) are TypeErrors with a code and a long hint.
    const message = error instanceof Error ? error.message.replace(/\. To specify a positional argument.*$/s, '') : String(error);
    throw new UsageError(`${message}\n${USAGE}`);
  }
}

type Out = { stdout: (line: string) => void; stderr: (line: string) => void; stdin: () => Promise<string> };

function option(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required\n${USAGE}`);
  return value;
}

function positional(list: string[], index: number, what: string): string {
  const value = list.at(index);
  if (value === undefined) throw new UsageError(`${what} is required\n${USAGE}`);
  return value;
}

function commandOf(positionals: string[]): string {
  return `${positionals.at(0) ?? ''} ${positionals.at(1) ?? ''}`.trim();
}

async function run(ctx: ServiceContext, { values, positionals }: Parsed, out: Out): Promise<void> {
  const command = commandOf(positionals);
  switch (command) {
    case 'users add': {
      const user = await addUser(ctx, { email: positional(positionals, 2, 'EMAIL') });
      out.stdout(user.id);
      return;
    }
    case 'users set-password': {
      const email = positional(positionals, 2, 'EMAIL');
      // From stdin, never an argument: arguments show in `ps` and shell history. One line; the
      // line break that ends it is not part of the password.
      const password = (await out.stdin()).replace(/\r?\n$/, '');
      // A browser's password field cannot hold a line break, so such a password could never sign in.
      if (/[\r\n]/.test(password)) throw new UsageError('the password must be one line: stdin held more than one');
      await setPassword(ctx, { email, password });
      out.stdout(`password set for ${email}; their sessions are signed out`);
      return;
    }
    case 'tokens create': {
      const days = values['expires-days'];
      if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--expires-days must be a whole number');
      const email = option(values, 'user');
      const name = option(values, 'name');
      const scopes = option(values, 'scopes').split(',');
      const user = await getUserByEmail(ctx, { email });
      const { token } = await createToken(ctx, { userId: user.id }, {
        name,
        scopes,
        expiresDays: days === undefined ? undefined : Number(days),
      });
      out.stdout(token);
      return;
    }
    case 'tokens list': {
      const email = option(values, 'user');
      const user = await getUserByEmail(ctx, { email });
      const tokens = await listTokens(ctx, { userId: user.id });
      // The header on stdout like the rows (tab-separated); "none" on stderr, so scripts see no row.
      out.stdout(['ID', 'NAME', 'PREFIX', 'SCOPES', 'STATUS', 'CREATED', 'EXPIRES'].join('\t'));
      if (tokens.length === 0) out.stderr(`no tokens for ${email}`);
      for (const t of tokens) {
        out.stdout([t.id, t.name, t.prefix, t.scopes.join(','), tokenStatus(t, ctx.clock.now()), `created ${t.createdAt}`, `expires ${t.expiresAt ?? 'never'}`].join('\t'));
      }
      return;
    }
    case 'tokens revoke': {
      const id = positional(positionals, 2, 'TOKEN_ID');
      await revokeToken(ctx, { tokenId: id });
      out.stdout(`revoked ${id}`);
      return;
    }
    case 'tokens activity': {
      const id = positional(positionals, 2, 'TOKEN_ID');
      const limit = values.limit === undefined ? 100 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1) throw new UsageError('--limit must be a positive whole number');
      const entries = await listTokenActivity(ctx, { tokenId: id, limit });
      out.stdout(['AT', 'METHOD', 'ROUTE', 'DECK', 'STATUS', 'DURATION', 'CLIENT', 'USER_AGENT', 'REQUEST_ID', 'ERROR_CODE'].join('\t'));
      if (entries.length === 0) out.stderr(`no calls recorded for ${id}`);
      for (const e of entries) {
        out.stdout([e.at, e.method, e.route, e.deckId ?? '-', e.status, `${e.durationMs}ms`, e.clientIp ?? '-', e.userAgent ?? '-', e.requestId, e.errorCode ?? '-'].join('\t'));
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
    const parsed = parseCommandLine(argv);
    if (parsed.values.version) {
      process.stdout.write(`flashdeck ${VERSION}\n`);
      return 0;
    }
    if (parsed.values.help) {
      process.stdout.write(`${USAGE}\n`);
      return 0;
    }
    // No command: the usage, as a mistake (stderr, exit 1), before any store is opened.
    if (commandOf(parsed.positionals) === '') throw new UsageError(`a command is required\n${USAGE}`);
    const config = loadConfig(env);
    store = await openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    await migrateToLatest(store.db);
    const ctx = await createServiceContext({
      db: store.db, clock: systemClock, publicUrl: config.publicUrl, deckLimit: config.deckLimit, tokenHashKey: config.tokenHashKey,
      hashing: config.hashing,
      media: mediaSettings(config),
    });
    const usage = (message: string) => new UsageError(`${message}\n${USAGE}`);
    const lines = { stdout: (line: string) => process.stdout.write(`${line}\n`), stderr: (line: string) => process.stderr.write(`${line}\n`) };
    const handled = await runFormatCommand(ctx, parsed.positionals, parsed.values, {
      ...lines,
      write: (data) => new Promise((resolve, reject) => { process.stdout.write(data, (error) => (error ? reject(error) : resolve())); }),
    }, usage) || await runDecksCommand(ctx, parsed.positionals, parsed.values, lines, usage);
    if (!handled) await run(ctx, parsed, {
      stdout: (line) => process.stdout.write(`${line}\n`),
      stdin: readStdin,
      stderr: (line) => process.stderr.write(`${line}\n`),
    });
    return 0;
  } catch (error) {
    process.stderr.write(`flashdeck: ${describe(error)}\n`);
    return 1;
  } finally {
    await store?.close();
  }
}

/** All of stdin (at most 64 KiB: a password is at most 200 characters). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 65_536) throw new UsageError('stdin is longer than a password can be');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The one line an operator reads: a refusal from a service (a catalog error the request caused:
 * 4xx) or a mistake on the command line as it is; anything else is a failure of the command.
 */
function describe(error: unknown): string {
  if (isAppError(error) && error.status < 500) return error.message;
  if (error instanceof UsageError || error instanceof ConfigError) return error.message;
  return `failed: ${error instanceof Error ? error.message : String(error)}`;
}
