import { join } from "node:path";
import { createOutbox } from "@gw/accounting";
import { createBus, ensureProjectStreams } from "@gw/bus";
import { requireDistributedUrls } from "@gw/config";
import { createCounterStore } from "@gw/counters";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import { metricKeyPrefix } from "@gw/metrics";
import { BudgetServiceService } from "@gw/proto";
import { createGrpcClient } from "@gw/rpc";
import { parseSecretKey } from "@gw/security";
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
  requireDistributedUrls("admin-api", config, ["DATABASE_URL", "REDIS_URL", "NATS_URL"]);
  if (!config.SERVICE_SECRET_KEY)
    throw new Error("admin-api needs SERVICE_SECRET_KEY (32 bytes, base64): the same key as ingress");
  const secretKey = parseSecretKey(config.SERVICE_SECRET_KEY);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const counters = createCounterStore({
    redisUrl: config.REDIS_URL!,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  const bus = await createBus({
    natsUrl: config.NATS_URL!,
    namespace: config.BUS_NAMESPACE,
    name: "admin-api",
    logger,
  });
  await ensureProjectStreams(bus);
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
  shutdown.register("bus", () => bus.close());
  shutdown.register("budget-client", () => budget.close());
  shutdown.register("counters", () => counters.close());
  shutdown.register("database", () => db.close());
  logger.info({ address }, "admin-api listening");
}
