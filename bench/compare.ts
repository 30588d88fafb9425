// Two bench results side by side: every figure both files have (per-round lists left out; the
// medians stand for them), with the change from the first to the second.
//
//   npx node bench/compare.ts bench/results/before.json bench/results/latest.json [FILTER]
//
// FILTER keeps the figures whose name contains it (e.g. `deck.median`).
import fs from 'node:fs';

function flatten(value: unknown, prefix: string, out: Map<string, number>): void {
  if (typeof value === 'number') out.set(prefix, value);
  else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'machine' || key === 'settings') continue;
      flatten(inner, prefix === '' ? key : `${prefix}.${key}`, out);
    }
  }
}

const [beforeFile, afterFile, filter = ''] = process.argv.slice(2);
if (!beforeFile || !afterFile) {
  process.stderr.write('usage: npx node bench/compare.ts BEFORE.json AFTER.json [FILTER]\n');
  process.exit(2);
}
const read = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown> & { at?: string; commit?: string; machine?: { loadAverageAtStart?: number[] } };
const before = read(beforeFile);
const after = read(afterFile);
const a = new Map<string, number>();
const b = new Map<string, number>();
flatten(before, '', a);
flatten(after, '', b);
const rows: string[][] = [['figure', 'before', 'after', 'change']];
for (const [name, x] of a) {
  const y = b.get(name);
  if (y === undefined || !name.includes(filter) || name === 'runSeconds') continue;
  const change = x === 0 ? '' : `${y >= x ? '+' : ''}${(((y - x) / Math.abs(x)) * 100).toFixed(1)} %`;
  rows.push([name, String(x), String(y), change]);
}
const widths = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => (r[c]).length)));
const line = (r: string[]) => r.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ');
const load = (r: typeof before) => r.machine?.loadAverageAtStart?.join(' ') ?? '?';
process.stdout.write(`before: ${before.at} ${before.commit?.slice(0, 12)} (load ${load(before)})\nafter:  ${after.at} ${after.commit?.slice(0, 12)} (load ${load(after)})\n\n`);
process.stdout.write(`${rows.map(line).join('\n')}\n`);
