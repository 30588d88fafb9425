// Hot paths return a value when no I/O was needed and a promise when it was: each await of a
// promise costs a turn of the microtask queue (docs/performance.md).

/** Whether a result came back as a promise (I/O) or as it is. */
export function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}
