// What `npm run bench` prints: one table per throughput comparison (each round and the median),
// one table of the other figures, and the goals of issue 10 with their verdicts.
import type { ImportFigures } from './imports.ts';
import type { ListFigures } from './list.ts';
import type { McpFigures } from './mcp.ts';
import type { CeilingFigures } from './reads.ts';
import type { ScaleFigures } from './scale.ts';
import type { SoakFigures } from './soak.ts';
import type { Comparison } from './throughput.ts';

export interface Results {
  deck?: CeilingFigures | { skipped: string };
  whoami?: CeilingFigures | { skipped: string };
  imports?: ImportFigures;
  soak?: SoakFigures | { skipped: string };
  postgres?: Comparison | { skipped: string };
  list?: ListFigures;
  reviews?: { answerP50Ms: number; answerP99Ms: number; completeMs: number };
  scale?: ScaleFigures | { skipped: string };
  mcp?: McpFigures | { skipped: string };
}

export interface Goal {
  figure: string;
  value: number;
  goal: string;
  met: boolean;
}

const ran = <T extends object>(x: T | { skipped: string } | undefined): T | undefined => (x === undefined || 'skipped' in x ? undefined : x);

export function goals(r: Results): Goal[] {
  const out: Goal[] = [];
  const goal = (figure: string, value: number, text: string, met: boolean) => out.push({ figure, value, goal: text, met });
  const deck = ran(r.deck);
  if (deck) {
    goal('GET /decks/{id} req/s / node:http (median of rounds)', deck.median.ratio, '>= 0.7', deck.median.ratio >= 0.7);
    goal('GET /decks/{id} server CPU per request / node:http', deck.median.cpuRatio, '<= 1.4', deck.median.cpuRatio <= 1.4);
  }
  const whoami = ran(r.whoami);
  if (whoami) goal('GET /whoami req/s / node:http (median of rounds)', whoami.median.ratio, '>= 0.5', whoami.median.ratio >= 0.5);
  const soak = ran(r.soak);
  if (soak) {
    const note = soak.mode === 'short' ? ` (short soak: ${soak.loadSeconds} s + ${soak.watchSeconds} s)` : '';
    goal(`RSS after ${soak.loadSeconds} s of reads and imports, MB${note}`, soak.rssAfterLoadMB, '<= 150', soak.rssAfterLoadMB <= 150);
    goal(`RSS over a further ${soak.watchSeconds} s, largest deviation${note}`, soak.maxDeviation, '<= 0.10', soak.flat);
  }
  if (r.imports) {
    goal('POST /decks/import JSON, p50 ms', r.imports.json.p50Ms, '<= 8', r.imports.json.p50Ms <= 8);
    goal('POST /decks/import markdown, p50 ms', r.imports.markdown.p50Ms, '<= 8', r.imports.markdown.p50Ms <= 8);
  }
  const postgres = ran(r.postgres);
  if (postgres) goal('GET /decks/{id} on PostgreSQL + Redis / SQLite', postgres.median.ratio, '>= 0.6', postgres.median.ratio >= 0.6);
  if (r.list) goal(`GET /decks p50, ${r.list.largeStoreDecks} decks / 100 decks`, r.list.largeOverSmall, '<= 1.2', r.list.largeOverSmall <= 1.2);
  if (r.reviews) goal('POST /reviews/{id}/answers p50 ms', r.reviews.answerP50Ms, '< 5', r.reviews.answerP50Ms < 5);
  const mcp = ran(r.mcp);
  if (mcp) goal('MCP tools/list bytes (issue 22)', mcp.toolsList.bodyBytes, '<= 65536', mcp.toolsList.bodyBytes <= 65_536);
  return out;
}

function table(rows: string[][], rightAligned = (c: number) => c > 0): string {
  const columns = Math.max(...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length)));
  return rows.map((r) => r.map((cell, c) => (rightAligned(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c]))).join('  ').trimEnd()).join('\n');
}

const n = (v: number) => (Number.isFinite(v) ? String(v) : '-');

export function comparisonTable(title: string, c: Comparison): string {
  const rows = [[
    'round', `${c.subject} req/s`, 'CPU µs/req', 'RSS MB', '|', `${c.reference} req/s`, 'CPU µs/req', 'RSS MB', '|', 'ratio', 'CPU ratio', 'wrk µs/req', 'load',
  ]];
  c.rounds.forEach((r, i) => rows.push([
    String(i + 1), n(r.subject.reqPerSec), n(r.subject.cpuUsPerRequest), n(r.subject.rssMB), '|',
    n(r.reference.reqPerSec), n(r.reference.cpuUsPerRequest), n(r.reference.rssMB), '|',
    r.ratio.toFixed(3), r.cpuRatio.toFixed(3), `${n(r.subject.wrkCpuUsPerRequest)} / ${n(r.reference.wrkCpuUsPerRequest)}`, n(r.loadAverage),
  ]));
  const m = c.median;
  rows.push([
    'median', n(m.subject.reqPerSec), n(m.subject.cpuUsPerRequest), n(m.subject.rssMB), '|',
    n(m.reference.reqPerSec), n(m.reference.cpuUsPerRequest), n(m.reference.rssMB), '|',
    m.ratio.toFixed(3), m.cpuRatio.toFixed(3), `${n(m.subject.wrkCpuUsPerRequest)} / ${n(m.reference.wrkCpuUsPerRequest)}`, '',
  ]);
  return `${title}\nwrk -t${c.wrkThreads} -c${c.connections}, ${c.rounds.length} interleaved rounds of ${c.secondsPerRun} s; RSS after the run (median row: after the last)\n${table(rows)}`;
}

export function report(r: Results, header: string): string {
  const parts = [header];
  const deck = ran(r.deck);
  if (deck) parts.push(comparisonTable(`GET ${deck.path} (250 cards): ${deck.bodyBytes} B body, ${deck.headBytes} B of headers`, deck));
  const whoami = ran(r.whoami);
  if (whoami) parts.push(comparisonTable(`GET ${whoami.path}: ${whoami.bodyBytes} B body, ${whoami.headBytes} B of headers`, whoami));
  const postgres = ran(r.postgres);
  if (postgres) parts.push(comparisonTable('GET /api/v1/decks/{deckId}: PostgreSQL + Redis against SQLite', postgres));
  const scale = ran(r.scale);
  if (scale) parts.push(comparisonTable('GET /api/v1/decks/{deckId}: two PostgreSQL + Redis instances against one', scale.twoInstancesReads));
  const mcp = ran(r.mcp);
  if (mcp) parts.push(comparisonTable('MCP get_deck (POST /mcp tools/call) against GET /api/v1/decks/{deckId}, same deck', mcp));

  const rows: string[][] = [['figure', 'value']];
  if (r.imports) {
    for (const format of ['json', 'markdown'] as const) {
      const s = r.imports[format];
      rows.push([`POST /decks/import ${format} (${s.bodyBytes} B), ${r.imports.requests} creates: p50 / p90 / p99 ms`, `${s.p50Ms} / ${s.p90Ms} / ${s.p99Ms}`]);
      rows.push([`  server CPU per import, ms`, String(s.serverCpuMs)]);
    }
  }
  const soak = ran(r.soak);
  if (soak) {
    rows.push([`soak (${soak.mode}): RSS after ${soak.loadSeconds} s of reads and imports, MB`, String(soak.rssAfterLoadMB)]);
    rows.push([`  over the next ${soak.watchSeconds} s: min / max / end MB; largest deviation`, `${soak.watchMinMB} / ${soak.watchMaxMB} / ${soak.rssAtEndMB}; ${(soak.maxDeviation * 100).toFixed(1)} %`]);
    rows.push(['  load: reads/s; imports (per s)', `${soak.reads.reqPerSec}; ${soak.imports.count} (${soak.imports.perSec})`]);
  }
  if (r.list) {
    rows.push([`GET /decks?limit=25 p50 ms: 100 decks / ${r.list.largeStoreDecks} decks / deep page`, `${r.list.small.p50Ms} / ${r.list.large.p50Ms} / ${r.list.deep.p50Ms} (page ${r.list.deep.page})`]);
  }
  if (r.reviews) {
    rows.push(['POST /reviews/{id}/answers p50 / p99 ms; complete of 250 ms', `${r.reviews.answerP50Ms} / ${r.reviews.answerP99Ms}; ${r.reviews.completeMs}`]);
  }
  if (scale) {
    const il = scale.importLatency;
    rows.push(['import p50 ms JSON / markdown: SQLite; PostgreSQL + Redis', `${il.sqlite.json.p50Ms} / ${il.sqlite.markdown.p50Ms}; ${il.postgresRedis.json.p50Ms} / ${il.postgresRedis.markdown.p50Ms}`]);
    const it = scale.importThroughput;
    rows.push([`imports/s (${it.connections} connections): one instance / two; two / one`, `${it.oneInstancePerSec} / ${it.twoInstancesPerSec}; ${it.twoOverOne}`]);
    rows.push(['PostgreSQL bytes per row: deck / card / activity', ['decks', 'cards', 'activity'].map((t) => scale.postgresStorage[t]?.bytesPerRow ?? '-').join(' / ')]);
  }
  if (mcp) {
    rows.push([`MCP tools/list (${mcp.toolsList.bodyBytes} B, ${mcp.toolsList.gzipBytes} B gzip), ${mcp.toolsList.requests} requests: p50 / p99 ms`, `${mcp.toolsList.p50Ms} / ${mcp.toolsList.p99Ms}`]);
    rows.push(['MCP get_deck / API GET /decks/{id}: p50 ms (wrk, median round)', `${mcp.median.subject.p50Ms} / ${mcp.median.reference.p50Ms}`]);
  }
  if (rows.length > 1) parts.push(table(rows, () => false));

  const skipped = Object.entries(r).filter(([, v]) => v !== undefined && typeof v === 'object' && 'skipped' in v);
  if (skipped.length > 0) parts.push(skipped.map(([k, v]) => `${k}: skipped (${(v as { skipped: string }).skipped})`).join('\n'));
  const g = goals(r);
  if (g.length > 0) parts.push(table([['goal (issue 10)', 'value', 'goal', 'verdict'], ...g.map((x) => [x.figure, String(x.value), x.goal, x.met ? 'met' : 'MISSED'])], (c) => c === 1));
  return `${parts.join('\n\n')}\n`;
}
