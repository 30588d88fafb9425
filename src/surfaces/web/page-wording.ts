// Refusals as the pages word them: a field is named by the label the person sees beside it
// ("Front image URL must be an https:// URL..."), never by the API's path
// ("frontMedia.imageUrl must be..."). The services' messages name API fields, since the API, MCP
// and the CLI share them; the pages reword those that name a field (details.field) here, once.
import type { AppError } from '../../errors.ts';

/** The API field path of a form field -> the label the pages show for it. */
export const FIELD_LABELS: Readonly<Partial<Record<string, string>>> = {
  name: 'Name',
  scopes: 'Scopes',
  expiresDays: 'Expires in',
  email: 'Email',
  password: 'Password',
  current: 'Current password',
  new: 'New password',
  title: 'Title',
  description: 'Description',
  tags: 'Tags',
  visibility: 'Visibility',
  lang: 'Language',
  front: 'Front',
  back: 'Back',
  oneSided: 'One-sided',
  'frontMedia.imageUrl': 'Front image URL',
  'frontMedia.imageAlt': 'Front image alt text',
  'backMedia.imageUrl': 'Back image URL',
  'backMedia.imageAlt': 'Back image alt text',
  'extras.frontType': 'Front content type',
  'extras.backType': 'Back content type',
  'extras.cardType': 'Card type',
  'extras.subject': 'Subject',
  'extras.topic': 'Topic',
  'extras.info': 'Info',
};

/** Whole sentences for refusals whose service wording reads oddly beside a form. */
const SENTENCES: Readonly<Partial<Record<string, string>>> = {
  'scopes:at least one scope is required': 'Scopes: tick at least one scope.',
  'name:the token name must be 1 to 100 characters': 'Name: give the token a name of 1 to 100 characters.',
};

/**
 * The message a page shows for a refusal: a field's API path replaced by its label (a path inside
 * a list, `cards[0].front`, by the label of its last part), else the service's message as it is.
 */
export function pageMessage(error: AppError): string {
  const details = error.details as { field?: unknown } | undefined;
  const field = typeof details?.field === 'string' ? details.field : null;
  if (field === null) return error.message;
  const path = field.replace(/^cards\[\d+\]\./, '');
  const label = FIELD_LABELS[path];
  if (label === undefined) return error.message;
  const sentence = SENTENCES[`${path}:${error.message}`];
  if (sentence !== undefined) return sentence;
  // The API's wording starts with the field's path ("frontMedia.imageUrl must be ..."); a sentence
  // of a service's own ("The current password is not right") already reads well beside its field.
  if (error.message.startsWith(`${field} `)) return `${label}${error.message.slice(field.length)}`;
  if (/^[A-Z]/.test(error.message)) return error.message;
  return `${label}: ${error.message}`;
}
