import { join } from "node:path";
import { createOutbox } from "@gw/accounting";
import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import { metricKeyPrefix } from "@gw/metrics";
import { BudgetServiceService } from "@gw/proto";
import { createGrpcClient } from "@gw/rpc";
import Fastify, { type FastifyBaseLogger, LogController } from "fastify";
import { deriveJwtKey } from "./auth/jwt.js";
import type { AdminApiConfig } from "./config.js";
import { registerAdminApi } from "./plugin.js";

/**
 * admin-api as its own process: the management API on its own port (ingress forwards `/api/*`
 * here), PostgreSQL, Redis (login limits), NATS (audit entries, events and config changes through
 * its outbox), the budget service (spend-group usage).
 */
export async function startAdminApi(config: AdminApiConfig, { logger, shutdown, version }: ServiceContext) {
  const infra = await openServiceInfra("admin-api", config, logger, {
    database: true,
    counters: true,
    bus: true,
    secretKey: "the same key as ingress",
  });
  const { db, counters, bus, secretKey } = infra;
  const outbox = createOutbox({
    bus,
    logger,
    path: join(config.SERVICE_DATA_DIR, "admin-api-outbox.jsonl"),
    maxPending: config.OUTBOX_MAX_PENDING,
  });
  const budget = createGrpcClient(BudgetServiceService, config.BUDGET_GRPC_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.ADMIN_BODY_LIMIT_BYTES,
    // Behind ingress: the client address comes from its x-forwarded-for (login rate limits).
    trustProxy: true,
  });
  app.get("/health", async () => ({ status: "ok", version, timestamp: new Date().toISOString() }));
  registerAdminApi(app, {
    prisma: db.prisma,
    logger,
    jwtKey: deriveJwtKey(secretKey),
    secretKey,
    counters,
    outbox,
    budget: budget.client,
    metricsKeyPrefix: metricKeyPrefix(config.BUS_NAMESPACE),
    version,
  });
  const address = await app.listen({ host: config.ADMIN_API_HOST, port: config.ADMIN_API_PORT });
  shutdown.register("http", () => app.close());
  shutdown.register("outbox", async () => {
    await outbox.flush(config.SHUTDOWN_TIMEOUT_MS / 4);
    await outbox.close();
  });
  shutdown.register("budget-client", () => budget.close());
  infra.registerCloses(shutdown);
  logger.info({ address }, "admin-api listening");
}
