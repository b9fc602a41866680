import { createShutdown, type ServiceContext } from "@gw/lifecycle";
import { createLogger } from "@gw/logger";

/** A service context for in-process tests: a quiet logger and a shutdown the test runs itself. */
export function testServiceContext(name: string): ServiceContext {
  const logger = createLogger({ name, level: process.env.LOG_LEVEL ?? "silent" });
  return {
    logger,
    shutdown: createShutdown({ logger, timeoutMs: 10_000, exit: () => {} }),
    version: "0.0.0-test",
  };
}
