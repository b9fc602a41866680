import { createBus, ensureProjectStreams } from "@gw/bus";
import { requireDistributedUrls } from "@gw/config";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import type { AuditConfig } from "./config.js";
import { startAuditWriter } from "./consumer.js";

/** The audit service as its own process: NATS JetStream in, PostgreSQL out. */
export async function startAuditService(
  config: AuditConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  requireDistributedUrls("audit", config, ["DATABASE_URL", "NATS_URL"]);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const bus = await createBus({
    natsUrl: config.NATS_URL!,
    namespace: config.BUS_NAMESPACE,
    name: "audit",
    logger,
  });
  await ensureProjectStreams(bus);
  const subscription = await startAuditWriter({ bus, prisma: db.prisma });
  shutdown.register("consumer", () => subscription.stop());
  shutdown.register("bus", () => bus.close());
  shutdown.register("database", () => db.close());
  logger.info("audit consuming");
}
