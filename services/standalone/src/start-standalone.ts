import { join } from "node:path";
import { createEventPublisher } from "@gw/accounting";
import type { Bus } from "@gw/bus";
import { applyRuntimeLogLevel, createConfigStore } from "@gw/config-store";
import type { Database } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import { metricKeyPrefix } from "@gw/metrics";
import { BudgetServiceService, RoutingServiceService } from "@gw/proto";
import { inProcessClient } from "@gw/rpc";
import { deriveJwtKey, registerAdminApi } from "@gw/service-admin-api";
import { startAuditWriter } from "@gw/service-audit";
import { BUDGET_THROTTLED_EVENTS, createBudgetHandlers, startExpirySweeper } from "@gw/service-budget";
import { createOutbox, createUpstreamDispatcher, ingressDeps, serveIngress } from "@gw/service-ingress";
import { startMetricsConsumer, startPushScheduler } from "@gw/service-metrics-exporter";
import {
  createHealthStore,
  createLlmCaller,
  createRoutingHandlers,
  ROUTING_THROTTLED_EVENTS,
} from "@gw/service-routing";
import { startUsageWriter } from "@gw/service-usage-writer";
import type { StandaloneConfig } from "./config.js";
import { openInfrastructure } from "./infrastructure.js";

export interface StandaloneHandle {
  url: string;
  dataDir: string;
  /** The process's database (PGlite allows one opener: seeding and tests go through this). */
  db: Database;
  secretKey: Buffer;
  /** The in-process bus (tests read events from it). */
  bus: Bus;
}

/**
 * Every service in one process. Routing and budget are called through the same generated service
 * interfaces as over gRPC, in-process; usage-writer and audit consume the in-process bus.
 * Shutdown order: HTTP (in-flight requests finish) -> outbox flush -> consumers drain -> close.
 */
export async function startStandalone(
  config: StandaloneConfig,
  { logger, shutdown, version }: ServiceContext,
): Promise<StandaloneHandle> {
  const infra = await openInfrastructure(config, logger);
  const { db, bus, counters, secretKey } = infra;
  const configStore = createConfigStore({ prisma: db.prisma });
  // A log level set through /api/settings survives restarts.
  await applyRuntimeLogLevel(configStore, logger).catch(() => {});
  const budgetDeps = {
    configStore,
    counters,
    events: createEventPublisher(bus, logger, { throttled: BUDGET_THROTTLED_EVENTS }),
    logger,
    reservationTtlMs: config.BUDGET_RESERVATION_TTL_MS,
  };
  const budget = inProcessClient(BudgetServiceService, createBudgetHandlers(budgetDeps), { logger });
  const sweeper = startExpirySweeper(budgetDeps, config.BUDGET_SWEEP_INTERVAL_MS);
  const outbox = createOutbox({
    bus,
    logger,
    path: join(infra.dataDir, "ingress-outbox.jsonl"),
    maxPending: config.OUTBOX_MAX_PENDING,
  });
  const upstream = createUpstreamDispatcher();
  const callRoutingModel = createLlmCaller({
    configStore,
    secretKey,
    budget,
    outbox,
    dispatcher: upstream,
    logger,
  });
  const routing = inProcessClient(
    RoutingServiceService,
    createRoutingHandlers({
      configStore,
      health: createHealthStore(counters),
      counters,
      events: createEventPublisher(bus, logger, { throttled: ROUTING_THROTTLED_EVENTS }),
      logger,
      ...(callRoutingModel ? { callRoutingModel } : {}),
    }),
    { logger },
  );
  const usageWriter = await startUsageWriter({ bus, prisma: db.prisma, logger });
  const auditWriter = await startAuditWriter({ bus, prisma: db.prisma });
  // The metrics exporter's consumer and push scheduler, in-process (own durable on the usage
  // stream); the Prometheus pull endpoint is admin-api's GET /api/metrics on this port.
  const metricsKeyPrefix = metricKeyPrefix(config.BUS_NAMESPACE);
  const metricsConsumer = await startMetricsConsumer({ bus, counters, logger, keyPrefix: metricsKeyPrefix });
  const pushScheduler = startPushScheduler({
    prisma: db.prisma,
    counters,
    secretKey,
    logger,
    intervalMs: config.METRICS_PUSH_INTERVAL_MS,
    keyPrefix: metricsKeyPrefix,
    allowMetadataUrls: config.SERVICE_ALLOW_METADATA_URLS,
  });
  const { url } = await serveIngress(
    ingressDeps(config, {
      logger,
      version,
      configStore,
      routing,
      budget,
      outbox,
      upstream,
      secretKey,
      prisma: db.prisma,
      mountExtraRoutes: (app) =>
        registerAdminApi(app, {
          prisma: db.prisma,
          logger,
          jwtKey: deriveJwtKey(secretKey),
          secretKey,
          counters,
          outbox,
          budget,
          metricsKeyPrefix,
          onConfigChanged: (entity) => {
            configStore.invalidate();
            if (entity === "settings") void applyRuntimeLogLevel(configStore, logger).catch(() => {});
          },
          version,
        }),
    }),
    { host: config.HOST, port: config.PORT, shutdown, flushTimeoutMs: config.SHUTDOWN_TIMEOUT_MS / 2 },
  );
  shutdown.register("push-scheduler", () => pushScheduler.stop());
  shutdown.register("consumers", async () => {
    await usageWriter.stop();
    await auditWriter.stop();
    await metricsConsumer.stop();
  });
  shutdown.register("sweeper", async () => sweeper.stop());
  shutdown.register("bus", () => bus.close());
  shutdown.register("upstream", () => upstream.close());
  shutdown.register("counters", () => counters.close());
  shutdown.register("database", () => db.close());
  return { url, dataDir: infra.dataDir, db, secretKey, bus };
}
