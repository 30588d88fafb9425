// RFC 4180 records, read by scanning with indexOf: quoted fields (`""` a quote; delimiters, CR and
// LF inside), records ended by CRLF or LF, empty lines skipped, any number of columns a record.
// csv-parse (a state machine run per character) spent about 4 ms of CPU on a 250-card deck of
// 100 KB, three times the JSON import's whole parse and more than the 1.2x the CSV import may cost
// over JSON (docs/performance.md "Formats"); this reads the same deck in a tenth of that. Bounded
// before the work it bounds: columns a record, characters a record, records in all; and it yields
// to other requests every 64 Ki characters.

/** Why the text is not CSV this reader takes; `line` is 1-based. */
export class CsvRecordError extends Error {
  readonly kind: 'too-many-columns' | 'too-many-records' | 'unclosed-quote' | 'record-too-long' | 'malformed';
  readonly line: number;
  constructor(kind: CsvRecordError['kind'], line: number, message: string) {
    super(message);
    this.kind = kind;
    this.line = line;
  }
}

export interface CsvRecordLimits {
  readonly delimiter: string;
  readonly maxColumns: number;
  readonly maxRecordChars: number;
  readonly maxRecords: number;
  /** Characters read between two yields to the event loop. */
  readonly sliceChars: number;
}

const nextTurn = () => new Promise<void>((resolve) => { setImmediate(resolve); });

function linesIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) n++;
  return n;
}

/** Every record of `text`, each an array of its fields. Throws CsvRecordError. */
export async function csvRecords(text: string, limits: CsvRecordLimits): Promise<string[][]> {
  const { delimiter } = limits;
  const out: string[][] = [];
  let pos = 0;
  let line = 1;
  let yieldAt = limits.sliceChars;
  let comma = text.indexOf(delimiter);
  while (pos < text.length) {
    if (pos >= yieldAt) {
      await nextTurn();
      yieldAt = pos + limits.sliceChars;
    }
    // An empty line is no record.
    if (text[pos] === '\n') { pos++; line++; continue; }
    if (text[pos] === '\r' && text[pos + 1] === '\n') { pos += 2; line++; continue; }
    if (out.length >= limits.maxRecords) throw new CsvRecordError('too-many-records', line, `more than ${limits.maxRecords} records`);
    const start = pos;
    const startLine = line;
    const fields: string[] = [];
    let newline = text.indexOf('\n', pos);
    let ended = false;
    while (!ended) {
      if (fields.length >= limits.maxColumns) throw new CsvRecordError('too-many-columns', line, `a record has more than ${limits.maxColumns} columns`);
      let value: string;
      if (text[pos] === '"') {
        value = '';
        let from = pos + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote === -1 || quote - start > limits.maxRecordChars) {
            if (text.length - start > limits.maxRecordChars) throw new CsvRecordError('record-too-long', startLine, `a record is longer than ${limits.maxRecordChars} characters`);
            throw new CsvRecordError('unclosed-quote', startLine, 'a quoted field is never closed');
          }
          value += text.slice(from, quote);
          if (text[quote + 1] === '"') {
            value += '"';
            from = quote + 2;
            continue;
          }
          line += linesIn(text, pos, quote);
          pos = quote + 1;
          break;
        }
        const next = text[pos];
        if (pos >= text.length) ended = true;
        else if (next === delimiter) pos++;
        else if (next === '\n') { pos++; line++; ended = true; }
        else if (next === '\r' && text[pos + 1] === '\n') { pos += 2; line++; ended = true; }
        else throw new CsvRecordError('malformed', line, 'a quoted field is followed by something other than a delimiter or the end of the record');
      } else {
        // The record's line end is looked for once, not once a field (a million empty fields).
        if (newline !== -1 && newline < pos) newline = text.indexOf('\n', pos);
        // Likewise the next delimiter: none left means none in any later record either.
        if (comma !== -1 && comma < pos) comma = text.indexOf(delimiter, pos);
        let end = newline === -1 ? text.length : newline;
        const atDelimiter = comma !== -1 && comma < end;
        if (atDelimiter) end = comma;
        value = text.slice(pos, end);
        if (!atDelimiter && end === newline && value.endsWith('\r')) value = value.slice(0, -1);
        if (value.includes('"')) throw new CsvRecordError('malformed', line, 'a quote inside a field that is not quoted');
        if (atDelimiter) pos = end + 1;
        else {
          pos = end === newline ? end + 1 : end;
          if (end === newline) line++;
          ended = true;
        }
      }
      if (pos - start > limits.maxRecordChars) throw new CsvRecordError('record-too-long', startLine, `a record is longer than ${limits.maxRecordChars} characters`);
      fields.push(value);
      // A delimiter that ends the text leaves one empty field after it.
      if (!ended && pos >= text.length) {
        fields.push('');
        ended = true;
      }
    }
    out.push(fields);
  }
  return out;
}
