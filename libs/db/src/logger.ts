/**
 * The logging surface libs/db needs. Structurally compatible with a pino logger, so services pass
 * their own logger without libs/db depending on pino.
 */
export interface DbLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/** Used when the caller passes no logger: libs/db never writes to stdout on its own. */
export const silentLogger: DbLogger = {
  info() {},
  warn() {},
  error() {},
  debug() {},
};
