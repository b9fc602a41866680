import { requireDistributedUrls } from "@gw/config";
import { createConfigStore } from "@gw/config-store";
import { createCounterStore } from "@gw/counters";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import { BudgetServiceService } from "@gw/proto";
import { createGrpcServer } from "@gw/rpc";
import type { BudgetConfig } from "./config.js";
import { createBudgetHandlers } from "./handlers.js";

/** Budget as its own process: Redis counters, PostgreSQL for budgets, a gRPC server for ingress. */
export async function startBudget(config: BudgetConfig, { logger, shutdown }: ServiceContext): Promise<void> {
  requireDistributedUrls("budget", config, ["DATABASE_URL", "REDIS_URL"]);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const counters = createCounterStore({
    redisUrl: config.REDIS_URL!,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  const server = createGrpcServer({ logger });
  server.add(
    BudgetServiceService,
    createBudgetHandlers({ configStore: createConfigStore({ prisma: db.prisma }), counters }),
  );
  const { port } = await server.listen(config.BUDGET_GRPC_LISTEN);
  shutdown.register("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  shutdown.register("counters", () => counters.close());
  shutdown.register("database", () => db.close());
  logger.info({ address: config.BUDGET_GRPC_LISTEN, port }, "budget listening");
}
