// Every tool's input schema is its API operation's parameters and body fields, as the served OpenAPI
// document has them (headers under their DECISIONS names), and its output schema accepts exactly
// what the operation's responses do: the MCP surface cannot drift from the API. (Every structured
// result the other MCP suites receive is validated against the operation too: test/helpers/mcp.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectMcp, OWN_RESULTS, TOOL_OPERATIONS, type McpSession } from '../../helpers/mcp.ts';
import { buildForSuite } from '../../helpers/server.ts';
import { inlineSchemaRefs } from '../../helpers/openapi.ts';
import { OUTPUT_DROPPED } from '../../../src/surfaces/mcp/tool-schemas.ts';

const HEADER_ARGS: Record<string, string> = { 'if-match': 'ifMatch', 'idempotency-key': 'idempotencyKey' };

type Parameter = { in: string; name: string; required?: boolean; schema: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> } };

/** A schema without our validator-only keywords (`x-...`), as a client is shown it. */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key.startsWith('x-') ? undefined : value)));
}

/**
 * A schema without annotations (descriptions, examples; names under `properties` are kept), and
 * without the `type: object` tools/list puts at the root of every output schema.
 */
function bare(schema: unknown, root = true): unknown {
  if (Array.isArray(schema)) return schema.map((item) => bare(item, false));
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    // A result's schema keeps shape and types; the bounds on what a client sends are left out.
    if (key === 'description' || key === 'examples' || OUTPUT_DROPPED.has(key) || (root && key === 'type')) continue;
    out[key] = key === 'properties'
      ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, bare(sub, false)]))
      : bare(value, false);
  }
  return out;
}

/** The JSON types a schema allows (a nullable enum: its values' type and null). */
function types(schema: any): string[] {
  if (typeof schema?.type === 'string') return [schema.type];
  if (Array.isArray(schema?.type)) return schema.type;
  if (Array.isArray(schema?.anyOf)) return schema.anyOf.flatMap(types);
  if (Array.isArray(schema?.enum)) return schema.enum.map((v: unknown) => (v === null ? 'null' : Number.isInteger(v) ? 'integer' : typeof v));
  return [];
}

/**
 * A result schema as tools/list spells it out (DECISIONS "MCP": at most 64 KB): fields to two
 * levels (a deck's cards, a card's fields), and deeper fields by their JSON type alone.
 */
function twoLevels(schema: unknown, levels: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => twoLevels(item, levels));
  if (schema === null || typeof schema !== 'object') return schema;
  if (levels < 0) {
    const list = [...new Set(types(schema))];
    return list.length === 0 ? {} : list.length === 1 ? { type: list[0] } : { anyOf: list.map((type) => ({ type })) };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, key === 'properties'
    ? Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([name, sub]) => [name, twoLevels(sub, levels - 1)]))
    : twoLevels(value, levels)]));
}

/** JSON with sorted keys: the OpenAPI generator may reorder a schema's keywords. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('MCP tool schemas', () => {
  let mcp: McpSession;
  let document: { paths: Record<string, Record<string, Operation>> };
  // Before the suite's hooks: closed first, while the server still answers.
  after(async () => { await mcp.close(); });
  const suite = buildForSuite({ socket: true });
  before(async () => {
    mcp = await connectMcp(suite.server, suite.user.token);
    document = inlineSchemaRefs(suite.server.app.apiDocument()) as never;
  });

  test("should take exactly the API operation's path, query, header and body fields, with the same schemas", async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const [method, path] = TOOL_OPERATIONS[tool.name] ?? [];
      const operation = document.paths[path ?? '']?.[method ?? ''];
      assert.ok(operation, `${tool.name}: operation ${method} ${path}`);
      // The connectors' tools take their own arguments (DECISIONS "MCP").
      if (tool.name === 'search' || tool.name === 'fetch') {
        assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}), [tool.name === 'search' ? 'query' : 'id'], tool.name);
        assert.deepEqual(tool.inputSchema.required, [tool.name === 'search' ? 'query' : 'id'], tool.name);
        continue;
      }
      const expected: Record<string, unknown> = {};
      for (const p of operation.parameters ?? []) {
        const name = p.in === 'header' ? HEADER_ARGS[p.name] : p.name;
        if (name !== undefined) expected[name] = plain(p.schema);
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      for (const [name, schema] of Object.entries(body?.properties ?? {})) expected[name] = plain(schema);
      // A body the API takes as text (markdown, CSV) is the argument of that name.
      if (operation.requestBody?.content['text/markdown'] !== undefined) expected.markdown = tool.inputSchema.properties?.markdown;
      if (operation.requestBody?.content['text/csv'] !== undefined) expected.csv = tool.inputSchema.properties?.csv;
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), Object.keys(expected).sort(), `${tool.name}: argument names`);
      for (const [name, schema] of Object.entries(expected)) {
        // The OpenAPI generator moves a parameter's description next to it, and tools/list keeps only
        // an argument's own description (none inside it, for its 64 KB): compare the constraints.
        const actual = bare(tool.inputSchema.properties?.[name], false);
        const want = bare(schema, false);
        assert.deepEqual(actual, want, `${tool.name}.${name}`);
      }
      for (const name of body?.required ?? []) {
        if (operation.requestBody?.content['text/markdown'] === undefined) assert.ok(tool.inputSchema.required?.includes(name), `${tool.name} requires ${name}`);
      }
      for (const p of operation.parameters ?? []) {
        if (p.in === 'path') assert.ok(tool.inputSchema.required?.includes(p.name), `${tool.name} requires ${p.name}`);
      }
    }
  });

  test("should describe as output exactly the API operation's success responses to two levels of fields, without their descriptions and examples", async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const [method, path] = TOOL_OPERATIONS[tool.name] ?? [];
      const operation = document.paths[path ?? '']?.[method ?? ''] as { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
      const output = tool.outputSchema as Record<string, unknown>;
      const own = OWN_RESULTS[tool.name] as { properties: Record<string, unknown>; required: string[] } | undefined;
      if (own !== undefined) {
        // A success of the tool's own shape (a 204, a markdown document, the connectors' shapes).
        assert.deepEqual(Object.keys(output.properties as object).sort(), Object.keys(own.properties).sort(), tool.name);
        assert.deepEqual([...(output.required as string[])].sort(), [...own.required].sort(), tool.name);
        assert.equal(output.type, 'object', tool.name);
        continue;
      }
      const successes = new Set(Object.entries(operation.responses)
        .filter(([status]) => status.startsWith('2'))
        .map(([, r]) => canonical(bare(twoLevels(plain(r.content?.['application/json']?.schema), 1)))));
      const branches = Array.isArray(output.anyOf) ? output.anyOf as unknown[] : [output];
      assert.deepEqual(new Set(branches.map((branch) => canonical(bare(branch)))), successes, `${tool.name}: its success bodies, and no error envelope`);
      assert.equal(output.type, 'object', tool.name);
    }
  });

  test('should list the tools in at most 64 KB (DECISIONS "MCP")', async () => {
    const res = await fetch(`${suite.server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${suite.user.token}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    const bytes = Buffer.byteLength(await res.text());
    // 64 KB read as 64,000 bytes, the stricter reading of DECISIONS.
    assert.ok(bytes <= 64_000, `tools/list is ${bytes} bytes`);
  });
});
