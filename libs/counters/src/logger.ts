/**
 * The logging surface this library needs: a subset of pino's `Logger`, so a pino logger (or a
 * child of one) can be passed as is, and tests can pass a stub.
 */
export interface CountersLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}
