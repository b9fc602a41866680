import { createShutdown, type ServiceContext } from "@gw/lifecycle";
import { createLogger } from "@gw/logger";

/** A service context for in-process runs (copied from test/support): a quiet logger and a shutdown we run ourselves. */
export function benchServiceContext(name: string, level = "warn"): ServiceContext {
  const logger = createLogger({ name, level });
  return {
    logger,
    shutdown: createShutdown({ logger, timeoutMs: 10_000, exit: () => {} }),
    version: "0.0.0-bench",
  };
}
