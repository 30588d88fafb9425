// A refusal of a deck or card form as a person reads it: the field named by the label they see
// beside it (page-wording.ts's table: `Title`, `Front image URL`), never by the API's path
// (`cards[0].frontMedia.imageUrl`), and the schema's wording in plain words ("at most 200
// characters", "cannot be empty") rather than Ajv's. pageMessage (page-wording.ts) keeps the
// service's wording for the account and token forms; these forms' refusals are schema messages.
import type { AppError } from '../../errors.ts';
import { FIELD_LABELS } from './page-wording.ts';

/** The pages' labels (page-wording.ts, one table for every page) and the editor's position field. */
const LABELS: Readonly<Partial<Record<string, string>>> = { ...FIELD_LABELS, to: 'Position' };

/** `cards[3].frontMedia.imageUrl` -> `frontMedia.imageUrl`; `deck.tags[2]` -> `tags`. */
function fieldKey(path: string): string {
  return path.replace(/^(?:cards\[\d+\]|deck)\.?/, '').replace(/\[\d+\]$/, '');
}

/** The label of a field path, or null for one the pages do not show. */
export function labelOf(path: string): string | null {
  return LABELS[fieldKey(path)] ?? null;
}

/** Ajv's and the services' phrases, said plainly. */
function plain(message: string, key: string): string {
  let m: RegExpExecArray | null;
  if ((m = /^must NOT have more than (\d+) characters$/.exec(message))) return `at most ${m[1]} characters`;
  if ((m = /^must NOT have more than (\d+) items$/.exec(message))) return `at most ${m[1]}`;
  if (/^must NOT have fewer than 1 characters$/.test(message)) return 'cannot be empty';
  if ((m = /^must NOT have fewer than (\d+) characters$/.exec(message))) return `at least ${m[1]} characters`;
  if (message.startsWith('must match pattern')) {
    if (key === 'lang') return 'a language code such as en, fr or pt-BR';
    if (key === 'title') return 'cannot be blank';
    return 'is not in a form this field takes';
  }
  if (message === 'must be an https:// URL or a root-relative path') return 'an https:// address, or a path on this site starting with /';
  if (message === 'must be an https:// URL') return 'an https:// address';
  if (message.startsWith('must be one of')) return 'choose one of the options';
  return message.replace(/^must /, '');
}

/**
 * The message to show for a refusal of a form: `Title: at most 200 characters`. An error about no
 * particular field keeps its own message, less any API path it starts with.
 */
export function fieldMessage(error: AppError): string {
  const details = error.details as { field?: unknown; errors?: { field?: unknown; message?: unknown }[] } | undefined;
  const first = details?.errors?.[0];
  const path = typeof first?.field === 'string' ? first.field : typeof details?.field === 'string' ? details.field : null;
  const raw = typeof first?.message === 'string' ? first.message : error.message;
  if (path !== null && /at least one of front or back/.test(raw)) return 'Write a front or a back.';
  if (error.code === 'TOO_MANY_CARDS') return 'A deck holds at most 250 cards.';
  const label = path === null ? null : labelOf(path);
  if (label === null) return sentence(path === null ? raw : raw.replace(`${path} `, '').replace(`${path}: `, ''));
  return `${label}: ${plain(raw, fieldKey(path ?? ''))}.`;
}

function sentence(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '') return 'That did not work.';
  const upper = trimmed[0].toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(upper) ? upper : `${upper}.`;
}
