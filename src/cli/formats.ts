// `flashdeck import FILE --user EMAIL` and `flashdeck export DECK --format apkg|csv|md`: decks as
// files through the same services as the API (modules/deck-files/deck-files.service.ts).
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ServiceContext } from '../context.ts';
import { deckFileKind, exportDeckFile, importDeckFile } from '../modules/deck-files/deck-files.service.ts';
import { getUserByEmail } from '../modules/users/users.service.ts';

export const FORMAT_USAGE = `  flashdeck import FILE --user EMAIL [--deck NAME|ID] [--title TITLE]   (.apkg, .colpkg, .csv, .md, .json)
  flashdeck export DECK_ID --format apkg|csv|md [--out FILE]              (stdout without --out)`;

export const FORMAT_OPTIONS = {
  format: { type: 'string' },
  out: { type: 'string' },
  deck: { type: 'string' },
  title: { type: 'string' },
} as const;

export interface FormatOut {
  stdout: (line: string) => void;
  stderr: (line: string) => void;
  /** Bytes to stdout as they are (an export without --out). */
  write: (data: Buffer) => Promise<void>;
}

type Values = Partial<Record<'user' | 'format' | 'out' | 'deck' | 'title', string | boolean>>;

function str(values: Values, name: keyof Values): string | undefined {
  const value = values[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Runs `import` or `export` when it is the command; false for any other command. `usage` makes
 * the error of a command line that lacks something.
 */
export async function runFormatCommand(
  ctx: ServiceContext, positionals: readonly string[], values: Values, out: FormatOut, usage: (message: string) => Error,
): Promise<boolean> {
  const command = positionals.at(0);
  if (command === 'import') {
    const file = positionals.at(1);
    const email = str(values, 'user');
    if (file === undefined) throw usage('FILE is required');
    if (email === undefined) throw usage('--user is required');
    if (deckFileKind(file) === null) throw usage('FILE must end in .apkg, .colpkg, .csv, .md or .json');
    const user = await getUserByEmail(ctx, { email });
    const result = await importDeckFile(ctx, { userId: user.id }, {
      fileName: path.basename(file), data: await fs.readFile(file), deck: str(values, 'deck'), title: str(values, 'title'),
    });
    out.stdout(['DECK_ID', 'CARDS', 'TITLE'].join('\t'));
    for (const deck of result.decks) {
      out.stdout([deck.deckId, deck.cardCount, deck.title ?? ''].join('\t'));
      for (const w of deck.warnings ?? []) out.stderr(`${deck.deckId}: ${w.code}${w.cardIndex === undefined ? '' : ` (card ${w.cardIndex})`}: ${w.message}`);
    }
    for (const w of result.warnings) out.stderr(`${w.code}: ${w.message}`);
    return true;
  }
  if (command === 'export') {
    const deckId = positionals.at(1);
    const format = str(values, 'format');
    if (deckId === undefined) throw usage('DECK_ID is required');
    if (format !== 'apkg' && format !== 'csv' && format !== 'md') throw usage('--format must be apkg, csv or md');
    const file = await exportDeckFile(ctx, null, { deckId, format });
    const target = str(values, 'out');
    if (target === undefined) await out.write(file.data);
    else {
      await fs.writeFile(target, file.data);
      out.stderr(`wrote ${target} (${file.data.length} bytes)`);
    }
    return true;
  }
  return false;
}
