// Writes the served OpenAPI document to a file (for `redocly lint` and client generators).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

const out = process.argv[2] ?? 'openapi.json';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flashdeck-openapi-'));
const app = await buildApp(loadConfig({ ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' }), { logger: false });
try {
  fs.writeFileSync(out, `${JSON.stringify(app.apiDocument(), null, 2)}\n`);
} finally {
  await app.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
