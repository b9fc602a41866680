import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import type { AuditConfig } from "./config.js";
import { startAuditWriter } from "./consumer.js";

/** The audit service as its own process: NATS JetStream in, PostgreSQL out. */
export async function startAuditService(
  config: AuditConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  const infra = await openServiceInfra("audit", config, logger, { database: true, bus: true });
  const subscription = await startAuditWriter({ bus: infra.bus, prisma: infra.db.prisma });
  shutdown.register("consumer", () => subscription.stop());
  infra.registerCloses(shutdown);
  logger.info("audit consuming");
}
