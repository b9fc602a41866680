import { requireDistributedUrls } from "@gw/config";
import { createConfigStore } from "@gw/config-store";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import { RoutingServiceService } from "@gw/proto";
import { createGrpcServer } from "@gw/rpc";
import type { RoutingConfig } from "./config.js";
import { createRoutingHandlers } from "./handlers.js";

/** Routing as its own process: PostgreSQL for configuration, a gRPC server for ingress. */
export async function startRouting(
  config: RoutingConfig,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  requireDistributedUrls("routing", config, ["DATABASE_URL"]);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const server = createGrpcServer({ logger });
  server.add(
    RoutingServiceService,
    createRoutingHandlers({ configStore: createConfigStore({ prisma: db.prisma }) }),
  );
  const { port } = await server.listen(config.ROUTING_GRPC_LISTEN);
  shutdown.register("grpc", () => server.shutdown(config.SHUTDOWN_TIMEOUT_MS / 2));
  shutdown.register("database", () => db.close());
  logger.info({ address: config.ROUTING_GRPC_LISTEN, port }, "routing listening");
}
