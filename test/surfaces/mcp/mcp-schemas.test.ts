// Every tool's input schema is its API operation's parameters and body fields, as the served OpenAPI
// document has them (headers under their DECISIONS names), and its output schema accepts exactly
// what the operation's responses do: the MCP surface cannot drift from the API. (Every structured
// result the other MCP suites receive is validated against the operation too: test/helpers/mcp.ts.)
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { connectMcp, TOOL_OPERATIONS, type McpSession } from '../../helpers/mcp.ts';
import { startServerWithUser, type TestServer } from '../../helpers/server.ts';
import { inlineSchemaRefs } from '../../helpers/openapi.ts';

const HEADER_ARGS: Record<string, string> = { 'if-match': 'ifMatch', 'idempotency-key': 'idempotencyKey' };

type Parameter = { in: string; name: string; required?: boolean; schema: Record<string, unknown> };
type Operation = { parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }> } };

/** A schema without our validator-only keywords (`x-...`), as a client is shown it. */
function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema, (key, value: unknown) => (key.startsWith('x-') ? undefined : value)));
}

/** JSON with sorted keys: the OpenAPI generator may reorder a schema's keywords. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

describe('MCP tool schemas', () => {
  let server: TestServer;
  let mcp: McpSession;
  let document: { paths: Record<string, Record<string, Operation>> };
  before(async () => {
    const started = await startServerWithUser();
    server = started.server;
    mcp = await connectMcp(server, started.user.token);
    document = inlineSchemaRefs(server.app.apiDocument()) as never;
  });
  after(async () => {
    await mcp.close();
    await server.close();
  });

  test("should take exactly the API operation's path, query, header and body fields, with the same schemas", async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const [method, path] = TOOL_OPERATIONS[tool.name] ?? [];
      const operation = document.paths[path ?? '']?.[method ?? ''];
      assert.ok(operation, `${tool.name}: operation ${method} ${path}`);
      const expected: Record<string, unknown> = {};
      for (const p of operation.parameters ?? []) {
        const name = p.in === 'header' ? HEADER_ARGS[p.name] : p.name;
        if (name !== undefined) expected[name] = plain(p.schema);
      }
      const body = operation.requestBody?.content['application/json']?.schema;
      for (const [name, schema] of Object.entries(body?.properties ?? {})) expected[name] = plain(schema);
      if (operation.requestBody?.content['text/markdown'] !== undefined) expected.markdown = tool.inputSchema.properties?.markdown;
      assert.deepEqual(Object.keys(tool.inputSchema.properties ?? {}).sort(), Object.keys(expected).sort(), `${tool.name}: argument names`);
      for (const [name, schema] of Object.entries(expected)) {
        const actual = { ...(tool.inputSchema.properties?.[name] as Record<string, unknown>) };
        const want = { ...(schema as Record<string, unknown>) };
        // The OpenAPI generator moves a parameter's description next to it; compare the constraints.
        delete actual.description;
        delete want.description;
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

  test("should describe as output exactly the API operation's responses, successes and error envelopes", async () => {
    const { tools } = await mcp.client.listTools();
    for (const tool of tools) {
      const [method, path] = TOOL_OPERATIONS[tool.name] ?? [];
      const operation = document.paths[path ?? '']?.[method ?? ''] as { responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
      const responses = Object.values(operation.responses).map((r) => plain(r.content?.['application/json']?.schema)).filter((s) => s !== undefined);
      const anyOf = (tool.outputSchema as unknown as { anyOf: unknown[] }).anyOf;
      assert.equal(anyOf.length, responses.length, `${tool.name}: one branch per documented response`);
      // The generator lifts a response schema's description and examples into the response object.
      const core = (schema: unknown) => {
        const { description: _d, examples: _e, ...rest } = schema as Record<string, unknown>;
        return canonical(rest);
      };
      for (const branch of anyOf) assert.ok(responses.some((r) => core(r) === core(branch)), `${tool.name}: ${JSON.stringify(branch).slice(0, 120)}`);
    }
  });
});
