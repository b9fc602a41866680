import { join } from "node:path";
import { createEventPublisher, createOutbox } from "@gw/accounting";
import { createConfigStore, followConfigChanges } from "@gw/config-store";
import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import { BudgetServiceService, RoutingServiceService } from "@gw/proto";
import { createGrpcClient, createGrpcServer } from "@gw/rpc";
import { parseSecretKey } from "@gw/security";
import { Agent } from "undici";
import type { RoutingConfig } from "./config.js";
import { ROUTING_THROTTLED_EVENTS } from "./event-throttle.js";
import { createRoutingHandlers } from "./handlers.js";
import { createHealthStore } from "./health/index.js";
import { createLlmCaller } from "./llm-caller.js";

/**
 * Routing as its own process: PostgreSQL for configuration, Redis for the health shared by every
 * replica (error rates, circuits, cooldowns), NATS for its events, a gRPC server for ingress.
 */
export async function startRouting(
  config: RoutingConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  const infra = await openServiceInfra("routing", config, logger, {
    database: true,
    counters: true,
    bus: true,
  });
  const { db, counters, bus } = infra;
  const configStore = createConfigStore({ prisma: db.prisma });
  // Every replica drops its config cache when the management API changes something.
  const configWatch = await followConfigChanges(bus, configStore, logger);
  // The llm policy's own calls: budget reservations and usage records like any proxy call.
  const budget = createGrpcClient(BudgetServiceService, config.BUDGET_GRPC_ADDRESS, {
    defaultDeadlineMs: config.GRPC_DEADLINE_MS,
  });
  const outbox = createOutbox({
    bus,
    logger,
    path: join(config.SERVICE_DATA_DIR, "routing-outbox.jsonl"),
    maxPending: config.OUTBOX_MAX_PENDING,
  });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 64 });
  const callRoutingModel = createLlmCaller({
    configStore,
    secretKey: config.SERVICE_SECRET_KEY ? parseSecretKey(config.SERVICE_SECRET_KEY) : undefined,
    budget: budget.client,
    outbox,
    dispatcher,
    logger,
  });
  const server = createGrpcServer({ logger });
  server.add(
    RoutingServiceService,
    createRoutingHandlers({
      configStore,
      health: createHealthStore(counters),
      counters,
      events: createEventPublisher(bus, logger, { throttled: ROUTING_THROTTLED_EVENTS }),
      logger,
      ...(callRoutingModel ? { callRoutingModel } : {}),
    }),
  );
  const { port } = await server.listen(config.ROUTING_GRPC_LISTEN);
  shutdown.register("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  shutdown.register("outbox", () => outbox.flush(config.SHUTDOWN_TIMEOUT_MS / 4));
  shutdown.register("config-watch", () => configWatch.stop());
  shutdown.register("upstream", () => dispatcher.close());
  shutdown.register("budget-client", () => budget.close());
  infra.registerCloses(shutdown);
  logger.info({ address: config.ROUTING_GRPC_LISTEN, port }, "routing listening");
}
