import { ConfigError } from "./load-config.js";

/**
 * A service started on its own (distributed mode) shares state with the others only through the
 * real servers: an embedded database or bus in one process would silently split the system. So
 * its main demands the URLs it needs and says how to run everything embedded instead.
 */
export function requireDistributedUrls(
  service: string,
  config: {
    DATABASE_URL?: string | undefined;
    REDIS_URL?: string | undefined;
    NATS_URL?: string | undefined;
  },
  needed: ("DATABASE_URL" | "REDIS_URL" | "NATS_URL")[],
): void {
  const missing = needed.filter((name) => !config[name]);
  if (missing.length > 0) {
    throw new ConfigError(
      `${service} runs as its own process and needs ${missing.join(", ")}. ` +
        "To run every service in one process with embedded storage, use `npm start` (standalone).",
    );
  }
}
