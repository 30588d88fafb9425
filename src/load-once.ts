// Parts loaded by the first call that needs them (the MCP SDK, oidc-provider, the learning pages'
// renderers), so an instance that never serves them never holds them (docs/performance.md).

export interface LoadOnce<T> {
  /** The part: loaded by the first call; later calls share that load, or its value once made. */
  readonly get: () => Promise<T>;
  /** The part if it is loaded, without a promise (a hot path awaits only the first time). */
  readonly loaded: T | undefined;
}

/**
 * `load` run at most once: concurrent first calls share one load. A load that fails is forgotten
 * (and `onError` hears of it), so the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>, onError: (error: unknown) => void = () => {}): LoadOnce<T> {
  let pending: Promise<T> | null = null;
  let loaded: T | undefined;
  return {
    get: () => pending ??= load().then(
      (value) => (loaded = value),
      (error: unknown) => {
        pending = null;
        onError(error);
        throw error;
      },
    ),
    get loaded() {
      return loaded;
    },
  };
}
