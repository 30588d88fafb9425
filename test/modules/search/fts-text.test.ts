// What SQLite's FTS5 is given for a document (ftsText: ASCII parts as they are, others folded)
// against the folded words PostgreSQL is given (indexedText): FTS5's own tokenizer, with the
// index's settings, must read the same words, in the same order, from both, whatever the text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import fc from 'fast-check';
import { documentWords, ftsText, indexedText, ownWordsText, searchWords, userCode } from '../../../src/modules/search-index/search-text.ts';

describe('the text FTS5 indexes', () => {
  let db: BetterSqlite3.Database;
  let tokens: (text: string) => string[];
  before(() => {
    db = new BetterSqlite3(':memory:');
    // The same table definition as migration 0007's search_fts.
    db.exec("create virtual table t using fts5(body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 0')");
    db.exec("create virtual table v using fts5vocab(t, 'instance')");
    const insert = db.prepare('insert into t (rowid, body) values (1, ?)');
    const read = db.prepare('select term from v where doc = 1 order by offset');
    const remove = db.prepare('delete from t where rowid = 1');
    tokens = (text) => {
      insert.run(text);
      const terms = (read.all() as { term: string }[]).map((r) => r.term);
      remove.run();
      return terms;
    };
  });
  after(() => db.close());

  const asciiPart = fc.string({ unit: fc.constantFrom(...' \t\n.,;:!?\'"`()[]{}<>/\\|_-+*=#%&^~@$aZkQ09x'.split('')), maxLength: 60 });
  const anyPart = fc.string({ unit: fc.oneof(fc.constantFrom(...'aZé ÉßøÅ日本ﬁ٣²'.split('')), fc.constantFrom(...'ẞ ǅ Ⅻ ｶ ̈ ́-_'.split(''))), maxLength: 40 });
  const part = fc.option(fc.oneof(asciiPart, anyPart, fc.string({ maxLength: 30 })), { nil: undefined });

  test('should give FTS5 the same words as the folded text, ASCII or not', () => {
    fc.assert(fc.property(fc.array(part, { maxLength: 4 }), (parts) => {
      const folded = indexedText(parts);
      assert.deepEqual(tokens(ftsText(parts)), folded === '' ? [] : folded.split(' '));
    }), { numRuns: 400 });
  });

  test("should give FTS5 each of a user's words as one term, the user's code before it", () => {
    const code = userCode('usr_example');
    assert.match(code, /^[0-9a-z]{4}$/);
    fc.assert(fc.property(fc.array(part, { maxLength: 4 }), (parts) => {
      const words = documentWords(parts);
      const folded = indexedText(parts);
      assert.deepEqual(words, folded === '' ? [] : folded.split(' '));
      // A query for a word is the tokens of code + word: they must come in the document in a row.
      const doc = tokens(ownWordsText(parts, code)).join(' ');
      for (const word of words) assert.ok(` ${doc} `.includes(` ${tokens(code + word).join(' ')} `), `${word} in ${doc}`);
      assert.equal(tokens(ownWordsText(parts, code)).filter((t) => t.startsWith(code)).length, words.length);
      // And nothing else: the document's terms are exactly the words' terms, in order.
      assert.deepEqual(tokens(ownWordsText(parts, code)), words.flatMap((word) => tokens(code + word)));
    }), { numRuns: 300 });
  });

  test('should read an ASCII part as searchWords does, without folding it first', () => {
    const text = 'The Mitochondria: "powerhouse" (of) the_cell, 2x faster; E=mc^2 <b>bold</b>';
    assert.equal(ftsText([text]), text);
    assert.deepEqual(tokens(ftsText([text])), searchWords(text));
  });
});
