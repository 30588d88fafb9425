// JSON text from outside, as every surface reads it: a key of one backslash is refused before
// JSON.parse ever sees it (it makes V8 misread later keys process-wide: src/validation.ts), and
// keys that poison prototypes are refused with a message that says so.
import secureJsonParse from 'secure-json-parse';
import { AppError } from '../errors.ts';
import { BACKSLASH_KEY } from '../validation.ts';

/**
 * Whether secure-json-parse's scans could find a poisoning key: its two regular expressions over
 * the whole text (half the cost of parsing a 140 KB import, docs/performance.md) match only a key
 * spelled `__proto__` or `constructor`, plainly or with `\u` escapes. A text with neither word and
 * no `\u` is parsed as secure-json-parse would parse it then: its leading byte-order mark dropped.
 */
function mayPoison(text: string): boolean {
  return text.includes('\\u') || text.includes('__proto__') || text.includes('constructor');
}

/** The value of a JSON text; AppError SCHEMA_INVALID or BAD_REQUEST when it cannot be taken. */
export function parseJsonText(text: string): unknown {
  if (BACKSLASH_KEY.test(text)) {
    throw new AppError('SCHEMA_INVALID', 'The request body has a property named with one backslash, which is not accepted');
  }
  try {
    if (!mayPoison(text)) return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    return secureJsonParse(text, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    const poisoned = error instanceof SyntaxError && /forbidden/.test(error.message);
    throw new AppError('BAD_REQUEST', poisoned
      ? 'The request body contains a key named __proto__ (or constructor.prototype), which is not allowed'
      : 'The request body is not valid JSON');
  }
}
