// The walls of docs/architecture.md, checked on the import graph of src/: a module (services,
// repositories, schemas) imports no surface, no policy and no `surfaces/http.ts`; the feature
// folders under src/modules import each other without a cycle; surfaces and the policy reach
// storage through services (no `*.repository.ts`); and a surface imports no other surface's
// folder, but for MCP's tools taking their schemas from the API's routes. Import specifiers are read
// by TypeScript's own scanner (`ts.preProcessFile`: static, type-only, re-exports and dynamic
// `import()`), so a comment or a string that looks like an import is not one.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');

type ImportGraph = Map<string, string[]>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.(?:ts|mts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** Every file of src/ (relative to src/, `/`-separated) -> the files of src/ it imports. */
function importGraph(): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => fileName)
      .filter((specifier) => specifier.startsWith('.'))
      .map((specifier) => path.resolve(path.dirname(file), specifier))
      .filter((target) => target.startsWith(SRC + path.sep))
      .map((target) => path.relative(SRC, target).split(path.sep).join('/'));
    graph.set(path.relative(SRC, file).split(path.sep).join('/'), targets);
  }
  return graph;
}

/** `modules/<feature>/...` -> `<feature>`; null outside src/modules. */
function featureOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'modules' && parts.length > 2 ? parts[1] : null;
}

/** `surfaces/<name>/...` -> `<name>`; null for a file directly in surfaces/ (shared by them) or outside. */
function surfaceOf(file: string): string | null {
  const parts = file.split('/');
  return parts[0] === 'surfaces' && parts.length > 2 ? parts[1] : null;
}

/** The one surface-to-surface import by design: MCP's tools are derived from the API's routes (docs/mcp.md). */
const SURFACE_IMPORTS_BY_DESIGN = new Set(['mcp>api']);

/** Strongly connected components of more than one node (Tarjan), each sorted. */
function cycles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of edges.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('import graph of src/', () => {
  const graph = importGraph();

  test('should read the imports of every source file', () => {
    assert.ok(graph.size > 100, `only ${graph.size} files read`);
    assert.ok((graph.get('app.ts') ?? []).includes('surfaces/root.ts'), 'app.ts imports surfaces/root.ts');
    // A dynamic import is an import too (the Anki export loads its writer on first use).
    const dynamic = [...graph.values()].some((targets) => targets.some((target) => target.endsWith('anki-collection-writer.ts')));
    assert.ok(dynamic, 'a dynamic import() is in the graph');
  });

  test('should have no module importing a surface, the policy or surfaces/http.ts', () => {
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      if (featureOf(file) === null) continue;
      for (const target of targets) {
        if (target.startsWith('surfaces/') || target.startsWith('policy/')) crossings.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(crossings, []);
  });

  test('should have no surface or policy file importing a repository', () => {
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      if (!file.startsWith('surfaces/') && !file.startsWith('policy/')) continue;
      for (const target of targets) if (target.endsWith('.repository.ts')) crossings.push(`${file} -> ${target}`);
    }
    assert.deepEqual(crossings, []);
  });

  test('should have no surface importing another surface folder, but MCP the API\'s routes', () => {
    const crossings: string[] = [];
    for (const [file, targets] of graph) {
      const from = surfaceOf(file);
      if (from === null) continue;
      for (const target of targets) {
        const to = surfaceOf(target);
        if (to !== null && to !== from && !SURFACE_IMPORTS_BY_DESIGN.has(`${from}>${to}`)) crossings.push(`${file} -> ${target}`);
      }
    }
    assert.deepEqual(crossings, []);
  });

  test('should have no import cycle between the folders of src/modules', () => {
    const edges = new Map<string, Set<string>>();
    const via = new Map<string, string>();
    for (const [file, targets] of graph) {
      const from = featureOf(file);
      if (from === null) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      for (const target of targets) {
        const to = featureOf(target);
        if (to === null || to === from) continue;
        edges.get(from)!.add(to);
        if (!via.has(`${from}>${to}`)) via.set(`${from}>${to}`, `${file} -> ${target}`);
      }
    }
    const found = cycles(edges).map((component) => {
      const inside = [...via].filter(([key]) => {
        const [from, to] = key.split('>');
        return component.includes(from) && component.includes(to);
      }).map(([, example]) => example);
      return `${component.join(' <-> ')}: ${inside.join('; ')}`;
    });
    assert.deepEqual(found, []);
  });
});
