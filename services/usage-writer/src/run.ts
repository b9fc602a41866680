import { createBus, ensureProjectStreams } from "@gw/bus";
import { requireDistributedUrls } from "@gw/config";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import type { UsageWriterConfig } from "./config.js";
import { startUsageWriter } from "./consumer.js";

/** The usage writer as its own process: NATS JetStream in, PostgreSQL out. */
export async function startUsageWriterService(
  config: UsageWriterConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  requireDistributedUrls("usage-writer", config, ["DATABASE_URL", "NATS_URL"]);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const bus = await createBus({
    natsUrl: config.NATS_URL!,
    namespace: config.BUS_NAMESPACE,
    name: "usage-writer",
    logger,
  });
  await ensureProjectStreams(bus);
  const subscription = await startUsageWriter({
    bus,
    prisma: db.prisma,
    logger,
    maxInFlight: config.USAGE_WRITER_MAX_IN_FLIGHT,
  });
  // Drain first (handlers in flight finish and ack), then disconnect.
  shutdown.register("consumer", () => subscription.stop());
  shutdown.register("bus", () => bus.close());
  shutdown.register("database", () => db.close());
  logger.info("usage-writer consuming");
}
