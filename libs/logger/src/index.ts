import pino, { type Logger, type LoggerOptions } from "pino";

export type { Logger } from "pino";

/**
 * Paths never written to logs. Upstream keys, project tokens and secrets may sit in headers or
 * config objects; prompts and completions are not logged at info level by any caller.
 */
export const REDACTED_PATHS = [
  "req.headers.authorization",
  'req.headers["x-api-key"]',
  "headers.authorization",
  'headers["x-api-key"]',
  "authorization",
  "apiKey",
  "*.apiKey",
  "token",
  "*.token",
  "secret",
  "*.secret",
  "password",
  "*.password",
  "refreshToken",
  "*.refreshToken",
];

export interface CreateLoggerOptions {
  name: string;
  level?: string;
  /** Extra fields on every line (mode, instance id). */
  base?: Record<string, unknown>;
  /** Where lines go (default stdout); tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  const pinoOptions: LoggerOptions = {
    name: options.name,
    level: options.level ?? "info",
    base: { service: options.name, ...options.base },
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
