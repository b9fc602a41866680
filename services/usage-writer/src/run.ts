import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import type { UsageWriterConfig } from "./config.js";
import { startUsageWriter } from "./consumer.js";

/** The usage writer as its own process: NATS JetStream in, PostgreSQL out. */
export async function startUsageWriterService(
  config: UsageWriterConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  const infra = await openServiceInfra("usage-writer", config, logger, { database: true, bus: true });
  const { db, bus } = infra;
  const subscription = await startUsageWriter({
    bus,
    prisma: db.prisma,
    logger,
    maxInFlight: config.USAGE_WRITER_MAX_IN_FLIGHT,
  });
  // Drain first (handlers in flight finish and ack), then disconnect.
  shutdown.register("consumer", () => subscription.stop());
  infra.registerCloses(shutdown);
  logger.info("usage-writer consuming");
}
