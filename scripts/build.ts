// The production build (`npm run build`; `npm ci` runs it through `prepare` when dist/ is stale):
// src/ compiled by tsc into dist/ (rewriteRelativeImportExtensions: `./x.ts` imports become
// `./x.js`), with every file of src/ that is not TypeScript (the page templates and assets) copied
// beside it. `npm start` runs dist/server.js: compiled JavaScript starts with less memory than type
// stripping (README, docs/deployment.md "Memory"). Development and tests run the .ts sources directly.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const SRC = path.join(ROOT, 'src');
const DIST = path.join(ROOT, 'dist');

/** The newest modification time of a file under `dir` (0 when there is none). */
function newest(dir: string): number {
  if (!fs.existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) latest = Math.max(latest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return latest;
}

// `--if-stale` (npm start's prestart, `prepare`, the bench): nothing to do when dist/ is newer than
// every source file, so a changed src/ is never started from an older build. `prepare` runs on
// `npm ci` and also on every `npx flashdeck` in the project (npm installs the project's own bin
// into its npx cache, running `prepare` in place): without it each call rebuilt dist/ (tens of
// seconds of tsc) and removed dist/ under a running `npm start` meanwhile.
const MARK = path.join(DIST, '.built');
if (process.argv.includes('--if-stale') && fs.existsSync(MARK) && fs.statSync(MARK).mtimeMs >= Math.max(newest(SRC), fs.statSync(path.join(ROOT, 'tsconfig.build.json')).mtimeMs)) {
  process.exit(0);
}

fs.rmSync(DIST, { recursive: true, force: true });
const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', path.join(ROOT, 'tsconfig.build.json')], {
  cwd: ROOT, stdio: 'inherit',
});
if (tsc.status !== 0) {
  process.stderr.write('flashdeck build: tsc failed\n');
  process.exit(tsc.status ?? 1);
}
let copied = 0;
for (const entry of fs.readdirSync(SRC, { recursive: true, withFileTypes: true })) {
  if (!entry.isFile() || entry.name.endsWith('.ts')) continue;
  const from = path.join(entry.parentPath, entry.name);
  const to = path.join(DIST, path.relative(SRC, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  fs.copyFileSync(from, to);
  copied++;
}
fs.writeFileSync(MARK, `${new Date().toISOString()}\n`);
process.stdout.write(`flashdeck build: dist/ compiled, ${copied} templates and assets copied\n`);
