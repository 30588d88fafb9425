// The worker that reads an Anki package (anki-package.ts), so that unpacking, SQLite and mapping
// never hold the server's event loop, and so that the import can be ended at its time bound.
import { parentPort, workerData } from 'node:worker_threads';
import { AppError } from '../../errors.ts';
import { parseAnkiPackage, type PackageRequest } from './anki-package.ts';

const port = parentPort;
if (port === null) throw new Error('anki-worker.ts runs as a worker');
// Loaded: the time bound on reading the package starts now, not while modules load.
port.postMessage({ ready: true });

try {
  const parsed = await parseAnkiPackage(workerData as PackageRequest);
  const images = parsed.images.map((i) => ({ hash: i.hash, data: i.data, facts: i.facts }));
  // An image's own memory moves to the server's thread; one sharing a pool with others is copied.
  const own = images.map((i) => i.data).filter((d) => d.byteOffset === 0 && d.byteLength === d.buffer.byteLength).map((d) => d.buffer as ArrayBuffer);
  port.postMessage({ ok: true, decks: parsed.decks, warnings: parsed.warnings, images }, [...new Set(own)]);
} catch (error) {
  if (error instanceof AppError) port.postMessage({ ok: false, code: error.code, message: error.message, details: error.details });
  else port.postMessage({ ok: false, code: 'INTERNAL_ERROR', message: error instanceof Error ? error.message : String(error) });
}
