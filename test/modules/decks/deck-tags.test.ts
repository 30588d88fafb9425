// Deck tags are normalised first (trimmed, empty ones dropped, case-insensitive duplicates removed
// keeping the first spelling: DECISIONS) and the limits (20 tags of 40 characters) hold for what
// remains, in JSON and markdown imports and in PATCH alike.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertSchemaInvalidAt, buildForSuiteWithDeck } from '../../helpers/fixtures.ts';
import type { ApiResponse } from '../../helpers/server.ts';

const forty = 'x'.repeat(40);
const distinct = (n: number) => Array.from({ length: n }, (_, i) => `tag${i}`);

describe('deck tags', () => {
  const f = buildForSuiteWithDeck();

  const importJson = (tags: unknown) => f.server.api('POST', '/decks/import', { token: f.user.token, json: { deck: { title: 'Tags', tags }, cards: [{ front: 'q' }] } });
  const importMarkdown = (tags: unknown) => f.server.api('POST', '/decks/import', {
    token: f.user.token, body: `---\nversion: 1\ntags: ${JSON.stringify(tags)}\n---\n# Tags\n\n## Front\nq\n`, headers: { 'content-type': 'text/markdown' },
  });
  const patch = (tags: unknown) => f.server.api('PATCH', `/decks/${f.deckId}`, { token: f.user.token, json: { tags } });

  async function storedTags(res: ApiResponse): Promise<string[]> {
    const id = res.body.deckId ?? res.body.id;
    return (await f.server.api('GET', `/decks/${id}`, { token: f.user.token })).body.tags;
  }

  const ACCEPTED: [string, unknown[], string[]][] = [
    ['a 40-character tag with surrounding spaces', ['  bio  ', `   ${forty}\t `], ['bio', forty]],
    ['26 copies of one tag', Array(26).fill('Bio'), ['Bio']],
    ['20 tags after dropping duplicates and empty ones', [...distinct(20), ...distinct(20).map((t) => t.toUpperCase()), '', '   '], distinct(20)],
    ['200 entries as sent', [...Array(199).fill(' same '), 'other'], ['same', 'other']],
  ];

  test('should accept tags that are within the limits once trimmed and de-duplicated', async () => {
    for (const [label, tags, expected] of ACCEPTED) {
      const json = await importJson(tags);
      assert.equal(json.status, 201, `JSON ${label}: ${json.text}`);
      assert.deepEqual(await storedTags(json), expected, `JSON ${label}`);
      const md = await importMarkdown(tags);
      assert.equal(md.status, 201, `markdown ${label}: ${md.text}`);
      assert.deepEqual(await storedTags(md), expected, `markdown ${label}`);
      const patched = await patch(tags);
      assert.equal(patched.status, 200, `PATCH ${label}: ${patched.text}`);
      assert.deepEqual(patched.body.tags, expected, `PATCH ${label}`);
    }
  });

  const REFUSED: [string, unknown[], string][] = [
    ['21 distinct tags', [...distinct(21), 'tag0'], 'tags'],
    ['a tag of 41 characters once trimmed', ['ok', ` ${forty}y `], 'tags[1]'],
    ['201 entries as sent', Array(201).fill('same'), 'tags'],
  ];

  test('should refuse tags past the limits once normalised, naming the field', async () => {
    const before = await f.server.api('GET', `/decks/${f.deckId}`, { token: f.user.token });
    for (const [label, tags, field] of REFUSED) {
      for (const [how, res, prefix] of [['JSON', await importJson(tags), 'deck.'], ['markdown', await importMarkdown(tags), 'deck.'], ['PATCH', await patch(tags), '']] as const) {
        assertSchemaInvalidAt(res, `${prefix}${field}`, `${how} ${label}`);
      }
    }
    const afterwards = await f.server.api('GET', `/decks/${f.deckId}`, { token: f.user.token });
    assert.equal(afterwards.body.version, before.body.version);
  });

  test('should describe the rule in the OpenAPI document without a limit the service does not apply', async () => {
    const doc = (await f.server.api('GET', '/openapi.json')).body;
    const body = doc.paths['/decks/{deckId}'].patch.requestBody.content['application/json'].schema;
    // A named shape is a $ref into components.schemas.
    const patch = body.$ref ? doc.components.schemas[String(body.$ref).split('/').pop() as string] : body;
    const schema = patch.properties.tags;
    assert.equal(schema.maxItems, 200);
    assert.equal(schema.items.maxLength, undefined);
    assert.match(schema.description, /at most 20 tags of at most 40 characters/);
  });
});
