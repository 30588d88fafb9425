// `flashdeck decks delete|restore DECK_ID` and `flashdeck decks list --user EMAIL [--deleted]`:
// the trash from the command line, through the same services as the API (acting as the deck's
// owner). A server that holds a deck's rendered read learns of a delete made here within 5
// seconds (the version board's trust, src/stores/version-board/).
import type { ServiceContext } from '../context.ts';
import { deleteDeck, listTrash, ownerOfDeck, restoreDeck } from '../modules/decks/deck-trash.service.ts';
import { listDecks } from '../modules/decks/decks.service.ts';
import { getUserByEmail } from '../modules/users/users.service.ts';

export const DECKS_USAGE = `  flashdeck decks list --user EMAIL [--deleted]
  flashdeck decks delete DECK_ID    (into the trash; purged after 30 days)
  flashdeck decks restore DECK_ID`;

export const DECKS_OPTIONS = {
  deleted: { type: 'boolean' },
} as const;

export interface DecksOut {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
}

type Values = Partial<Record<'user' | 'deleted', string | boolean>>;

/** Runs a `decks` command; false for any other command. */
export async function runDecksCommand(
  ctx: ServiceContext, positionals: readonly string[], values: Values, out: DecksOut, usage: (message: string) => Error,
): Promise<boolean> {
  if (positionals.at(0) !== 'decks') return false;
  const sub = positionals.at(1);
  if (sub === 'delete' || sub === 'restore') {
    const deckId = positionals.at(2);
    if (deckId === undefined) throw usage('DECK_ID is required');
    const owner = await ownerOfDeck(ctx, { deckId });
    if (sub === 'delete') {
      await deleteDeck(ctx, owner, { deckId });
      out.stdout(`deleted ${deckId}: in the trash for 30 days (flashdeck decks restore ${deckId} brings it back)`);
    } else {
      await restoreDeck(ctx, owner, { deckId });
      out.stdout(`restored ${deckId}`);
    }
    return true;
  }
  if (sub === 'list') {
    const email = typeof values.user === 'string' && values.user !== '' ? values.user : undefined;
    if (email === undefined) throw usage('--user is required');
    const user = await getUserByEmail(ctx, { email });
    const deleted = values.deleted === true;
    out.stdout((deleted ? ['ID', 'CARDS', 'DELETED', 'PURGE', 'TITLE'] : ['ID', 'CARDS', 'VISIBILITY', 'UPDATED', 'TITLE']).join('\t'));
    let token: string | undefined;
    let rows = 0;
    do {
      if (deleted) {
        const page = await listTrash(ctx, { userId: user.id }, { limit: 100, token });
        for (const d of page.decks) out.stdout([d.id, d.cardCount, d.deletedAt, d.purgeAt, d.title].join('\t'));
        rows += page.decks.length;
        token = page.nextToken ?? undefined;
      } else {
        const page = await listDecks(ctx, { userId: user.id }, { limit: 100, token });
        for (const d of page.items) out.stdout([d.id, d.cardCount, d.visibility, d.updatedAt ?? '', d.title].join('\t'));
        rows += page.items.length;
        token = page.nextToken ?? undefined;
      }
    } while (token !== undefined);
    if (rows === 0) out.stderr(deleted ? `no decks in the trash of ${email}` : `no decks for ${email}`);
    return true;
  }
  throw usage(`unknown command: decks ${sub ?? ''}`.trim());
}
