import { join } from "node:path";
import { createOutbox } from "@gw/accounting";
import { createConfigStore, followConfigChanges } from "@gw/config-store";
import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import { BudgetServiceService, RoutingServiceService } from "@gw/proto";
import { createGrpcClient } from "@gw/rpc";
import type { IngressConfig } from "./config.js";
import { ingressDeps } from "./deps.js";
import { createUpstreamDispatcher } from "./proxy/upstream-client.js";
import { grpcReadiness } from "./readiness.js";
import { registerAdminForwarding } from "./routes/admin-forward.js";
import { serveIngress } from "./serve.js";

/** Ingress as its own process: gRPC to routing and budget, NATS for usage, PostgreSQL for config. */
export async function startIngressService(
  config: IngressConfig,
  { logger, shutdown, version }: ServiceContext,
): Promise<void> {
  const infra = await openServiceInfra("ingress", config, logger, {
    database: true,
    bus: true,
    secretKey: "to decrypt upstream keys",
  });
  const { db, bus, secretKey } = infra;
  const routing = createGrpcClient(RoutingServiceService, config.ROUTING_GRPC_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const budget = createGrpcClient(BudgetServiceService, config.BUDGET_GRPC_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const outbox = createOutbox({
    bus,
    logger,
    path: join(config.SERVICE_DATA_DIR, "ingress-outbox.jsonl"),
    maxPending: config.OUTBOX_MAX_PENDING,
  });
  const upstream = createUpstreamDispatcher();
  const configStore = createConfigStore({ prisma: db.prisma });
  // Every replica drops its config cache when the management API changes something.
  const configWatch = await followConfigChanges(bus, configStore, logger);
  const { url } = await serveIngress(
    ingressDeps(config, {
      logger,
      version,
      configStore,
      routing: routing.client,
      budget: budget.client,
      outbox,
      upstream,
      secretKey,
      prisma: db.prisma,
      notReady: grpcReadiness({ routing, budget }),
      ...(config.ADMIN_API_URL
        ? { mountExtraRoutes: (app) => registerAdminForwarding(app, config.ADMIN_API_URL!, upstream) }
        : {}),
    }),
    { host: config.HOST, port: config.PORT, shutdown, flushTimeoutMs: config.SHUTDOWN_TIMEOUT_MS / 2 },
  );
  shutdown.register("config-watch", () => configWatch.stop());
  shutdown.register("grpc-clients", () => {
    routing.close();
    budget.close();
  });
  shutdown.register("upstream", () => upstream.close());
  infra.registerCloses(shutdown);
  logger.info({ url }, "ingress listening");
}
