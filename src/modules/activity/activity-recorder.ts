// Recording never delays or fails a call: entries are buffered and written in batches, off the
// request path. A failed write is logged and dropped rather than retried forever.
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { deleteActivityBefore, insertActivity, type ActivityEntry } from './activity.repository.ts';

export const ACTIVITY_RETENTION_DAYS = 90;

export interface ActivityRecorderOptions {
  flushIntervalMs?: number;
  maxBatch?: number;
  onError?: (error: unknown) => void;
}

export class ActivityRecorder {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #maxBatch: number;
  readonly #onError: (error: unknown) => void;
  #buffer: ActivityEntry[] = [];
  #flushing: Promise<void> = Promise.resolve();
  readonly #timer: NodeJS.Timeout;

  constructor(db: Db, clock: Clock, options: ActivityRecorderOptions = {}) {
    this.#db = db;
    this.#clock = clock;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#onError = options.onError ?? (() => {});
    this.#timer = setInterval(() => void this.flush(), options.flushIntervalMs ?? 200);
    this.#timer.unref();
  }

  record(entry: ActivityEntry): void {
    this.#buffer.push(entry);
    if (this.#buffer.length >= this.#maxBatch) void this.flush();
  }

  /** Writes what is buffered; resolves when every entry recorded so far is stored. */
  flush(): Promise<void> {
    this.#flushing = this.#flushing.then(async () => {
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.splice(0, this.#maxBatch);
        try {
          await insertActivity(this.#db, batch);
        } catch (error) {
          this.#onError(error);
        }
      }
    });
    return this.#flushing;
  }

  async purge(): Promise<void> {
    const cutoff = new Date(this.#clock.now().getTime() - ACTIVITY_RETENTION_DAYS * 86_400_000).toISOString();
    try {
      await deleteActivityBefore(this.#db, cutoff);
    } catch (error) {
      this.#onError(error);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    await this.flush();
  }
}
