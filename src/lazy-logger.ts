// A request's child logger, made only when something logs through it. Fastify makes one per
// request (pino's child(): about 3 µs, measured under load, docs/performance.md), and with
// per-request lines off (LOG_LEVEL above debug) almost no request ever logs.
import type { FastifyBaseLogger } from 'fastify';

type Bindings = Record<string, unknown>;

export class LazyChildLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: object;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: object) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  get #logger(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.#parent.level;
  }

  set level(level: string) {
    this.#logger.level = level;
  }

  fatal(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.fatal, logger, args);
  }

  error(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.error, logger, args);
  }

  warn(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.warn, logger, args);
  }

  info(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.info, logger, args);
  }

  debug(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.debug, logger, args);
  }

  trace(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.trace, logger, args);
  }

  silent(...args: unknown[]): void {
    const logger = this.#logger;
    Reflect.apply(logger.silent, logger, args);
  }
  child(bindings: Bindings, options?: object): FastifyBaseLogger {
    return this.#logger.child(bindings, options);
  }
}

/** Fastify's childLoggerFactory: the request's logger, made on first use. */
export function lazyChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: object): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
