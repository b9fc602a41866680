import { SERVICE_VERSION } from "@gw/config";
import { createLogger, type Logger } from "@gw/logger";
import { startTelemetry } from "@gw/telemetry";
import { createShutdown, type Shutdown } from "./shutdown.js";

export interface ServiceContext {
  logger: Logger;
  shutdown: Shutdown;
  version: string;
}

export interface BootConfig {
  LOG_LEVEL: string;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string | undefined;
  SHUTDOWN_TIMEOUT_MS: number;
}

/**
 * The common main of every service: telemetry first, then the service's own modules (imported
 * only now, so instrumentations see them), a logger, signal handling with a shutdown deadline.
 * The service's start function registers its shutdown steps in the order that loses nothing.
 */
export async function bootService<C extends BootConfig>(options: {
  name: string;
  config: C;
  loadStart: () => Promise<(config: C, context: ServiceContext) => Promise<void>>;
}): Promise<void> {
  const { name, config } = options;
  const telemetry = await startTelemetry({
    serviceName: name,
    version: SERVICE_VERSION,
    otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
  });
  const logger = createLogger({ name, level: config.LOG_LEVEL });
  const shutdown = createShutdown({ logger, timeoutMs: config.SHUTDOWN_TIMEOUT_MS });
  shutdown.installSignalHandlers();
  process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled rejection"));
  try {
    const start = await options.loadStart();
    await start(config, { logger, shutdown, version: SERVICE_VERSION });
    shutdown.register("telemetry", () => telemetry.shutdown());
  } catch (error) {
    logger.fatal({ err: error }, `${name} failed to start`);
    await shutdown.run("startup failed");
    process.exit(1);
  }
}
