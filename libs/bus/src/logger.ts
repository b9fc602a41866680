/**
 * The logging surface the bus needs. Structurally a subset of pino's `Logger`, so a pino logger can
 * be passed as is; this lib does not import the project logger to stay dependency free.
 */
export interface BusLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

const noop = (): void => {};

/** Logger used when the caller passes none. */
export const silentLogger: BusLogger = { info: noop, warn: noop, error: noop, debug: noop };
