// POST /decks/import/apkg: an Anki package in, one deck per Anki deck out, with their images, in
// one transaction (nothing half-imported stays). The package is read in a worker thread, ended at
// the time bound, so neither a large package nor an SQLite file crafted to be slow holds others up.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { inTransaction, type BeforeCommit, type ServiceContext } from '../../context.ts';
import { AppError, type ErrorCode } from '../../errors.ts';
import { assertBody } from '../../validation.ts';
import { createImportedDeckIn, prepareBody, type PreparedImport } from '../deck-import/deck-import.service.ts';
import { ImportBodySchema, type ImportResult, type ImportWarning } from '../decks/decks.schemas.ts';
import type { Actor } from '../identity/principal.ts';
import type { ImageFacts } from '../media/image-probe.ts';
import { discardStagedImages, stageImages, storeImages, type PreparedImage } from '../media/media.service.ts';
import type { PackageDeck } from './anki-package.ts';

export interface AnkiImportRequest {
  /**
   * The package. Taken: once it is written to the temporary file the worker reads, the import lets
   * go of it (sets an empty buffer here), so that a large package is not held in memory beside the
   * images read from it (docs/performance.md "Formats"). A caller passes the only other reference.
   */
  data: Buffer;
  /** One Anki deck by name or id; every deck when absent. */
  readonly deck?: string | undefined;
}

export interface AnkiImportResult {
  decks: ImportResult[];
  warnings: ImportWarning[];
}

type WorkerAnswer =
  | { ok: true; decks: PackageDeck[]; warnings: ImportWarning[]; images: { hash: string; data: Uint8Array; facts: ImageFacts }[] }
  | { ok: false; code: string; message: string; details?: unknown };

const WORKER_START_MS = 30_000;
// The sources run as .ts (tests, development) and compiled as .js (npm start, dist/): the worker is
// the sibling of this module's own kind.
const WORKER_URL = new URL(`./anki-worker.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);

function readInWorker(file: string, workDir: string, deck: string | null, timeLimitMs: number): Promise<WorkerAnswer> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { file, workDir, deck },
      // A package's collection and images, not more: a worker that runs away stops itself.
      // A young generation of 8 MB (V8 sizes it from the machine's memory otherwise, up to 48 MB):
      // the worker's garbage is short-lived strings of one note at a time, and what it keeps
      // (images, cards) moves to the old generation anyway.
      resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 8 },
    });
    let settled = false;
    const stop = (error: Error) => {
      settle(() => reject(error));
      void worker.terminate();
    };
    // Loading the worker's modules is not the package's time; a worker that never loads is ended too.
    let timer = setTimeout(() => stop(new Error('the package reader did not start')), WORKER_START_MS);
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      done();
    };
    worker.on('message', (answer: WorkerAnswer | { ready: true }) => {
      if (!('ready' in answer)) {
        settle(() => resolve(answer));
        return;
      }
      clearTimeout(timer);
      timer = setTimeout(() => stop(new AppError('APKG_TOO_SLOW', `Reading the package took longer than ${timeLimitMs / 1000} s; nothing was imported`)), timeLimitMs);
    });
    worker.once('error', (error: unknown) => settle(() => reject(error instanceof Error ? error : new Error(String(error)))));
    worker.once('exit', (code) => settle(() => reject(new Error(`the package reader stopped (exit ${code})`))));
  });
}

async function readPackage(ctx: ServiceContext, request: AnkiImportRequest): Promise<Extract<WorkerAnswer, { ok: true }>> {
  const workDir = await fs.mkdtemp(path.join(os.tmpdir(), 'flashdeck-apkg-'));
  try {
    const file = path.join(workDir, 'package.zip');
    await fs.writeFile(file, request.data);
    request.data = Buffer.alloc(0);
    const answer = await readInWorker(file, workDir, request.deck ?? null, ctx.media.apkgTimeLimitMs);
    if (!answer.ok) {
      if (answer.code === 'INTERNAL_ERROR') throw new Error(`reading the package failed: ${answer.message}`);
      throw new AppError(answer.code as ErrorCode, answer.message, answer.details);
    }
    return answer;
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

export async function importAnkiPackage(
  ctx: ServiceContext, actor: Actor, request: AnkiImportRequest, beforeCommit?: BeforeCommit<AnkiImportResult>,
): Promise<AnkiImportResult> {
  if (request.data.length === 0) throw new AppError('BAD_REQUEST', 'The request body is empty');
  if (request.data.length > ctx.media.apkgLimitBytes) {
    throw new AppError('PAYLOAD_TOO_LARGE', `An Anki package may be at most ${ctx.media.apkgLimitBytes} bytes`);
  }
  const parsed = await readPackage(ctx, request);
  // Validated and normalised as any import body is, before anything is written; a deck at a time,
  // so other requests are answered between them.
  const prepared: PreparedImport[] = [];
  for (const deck of parsed.decks) {
    const warnings = [...deck.warnings];
    const body = assertBody(ImportBodySchema, { deck: deck.meta, cards: deck.cards });
    prepared.push(prepareBody(body, false, warnings));
    await new Promise((resolve) => { setImmediate(resolve); });
  }
  const images: PreparedImage[] = parsed.images.map((i) => ({ hash: i.hash, facts: i.facts, data: Buffer.from(i.data.buffer, i.data.byteOffset, i.data.byteLength) }));
  // The images' bytes first, in transactions of their own (stageImages says why); the decks and
  // the images' ownership in one, so that a failure leaves no deck and, once the staged bytes are
  // discarded, no image.
  const staged = await stageImages(ctx, actor, images);
  let written;
  try {
    written = await inTransaction(ctx.db, async (trx) => {
      await storeImages(ctx, trx, actor, images);
      const decks = [];
      for (const deck of prepared) decks.push(await createImportedDeckIn(ctx, trx, actor, deck));
      const result: AnkiImportResult = { decks: decks.map((d) => d.result), warnings: parsed.warnings };
      await beforeCommit?.(trx, result);
      return { decks, result };
    });
  } catch (error) {
    await discardStagedImages(ctx, staged);
    throw error;
  }
  for (const { deck } of written.decks) await ctx.deckVersions.publish(deck.id, deck.updatedAt);
  return written.result;
}
