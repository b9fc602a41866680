import { createEventPublisher } from "@gw/accounting";
import { createConfigStore, followConfigChanges } from "@gw/config-store";
import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import { BudgetServiceService } from "@gw/proto";
import { createGrpcServer } from "@gw/rpc";
import type { BudgetConfig } from "./config.js";
import { BUDGET_THROTTLED_EVENTS, type BudgetDeps } from "./deps.js";
import { startExpirySweeper } from "./expiry-sweeper.js";
import { createBudgetHandlers } from "./handlers.js";

/**
 * Budget as its own process: Redis counters shared by every replica, PostgreSQL for budgets and
 * limits, NATS for `budget.*` events, a gRPC server for ingress and routing, and the sweeper that
 * gives back reservations nobody settled.
 */
export async function startBudget(config: BudgetConfig, { logger, shutdown }: ServiceContext): Promise<void> {
  const infra = await openServiceInfra("budget", config, logger, {
    database: true,
    counters: true,
    bus: true,
  });
  const { db, counters, bus } = infra;
  const configStore = createConfigStore({ prisma: db.prisma });
  // Every replica drops its config cache when the management API changes something.
  const configWatch = await followConfigChanges(bus, configStore, logger);
  const deps: BudgetDeps = {
    configStore,
    counters,
    events: createEventPublisher(bus, logger, { throttled: BUDGET_THROTTLED_EVENTS }),
    logger,
    reservationTtlMs: config.BUDGET_RESERVATION_TTL_MS,
  };
  const server = createGrpcServer({ logger });
  server.add(BudgetServiceService, createBudgetHandlers(deps));
  const sweeper = startExpirySweeper(deps, config.BUDGET_SWEEP_INTERVAL_MS);
  const { port } = await server.listen(config.BUDGET_GRPC_LISTEN);
  shutdown.register("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  shutdown.register("sweeper", async () => sweeper.stop());
  shutdown.register("config-watch", () => configWatch.stop());
  infra.registerCloses(shutdown);
  logger.info({ address: config.BUDGET_GRPC_LISTEN, port }, "budget listening");
}
