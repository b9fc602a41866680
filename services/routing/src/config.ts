import { BaseEnv, GrpcEnv, InfraEnv, loadConfig, SecretEnv } from "@gw/config";
import { z } from "zod";

export const RoutingConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(GrpcEnv.shape)
  .extend(SecretEnv.shape)
  .extend({
    /** The llm policy's usage records waiting for the bus (routing's own outbox). */
    OUTBOX_MAX_PENDING: z.coerce.number().int().min(1).default(100_000),
    /** Where the routing gRPC server binds ("host:port" or "unix:/path"). */
    ROUTING_GRPC_LISTEN: z.string().default("0.0.0.0:50051"),
  });
export type RoutingConfig = z.infer<typeof RoutingConfig>;

export function readRoutingConfig(): RoutingConfig {
  return loadConfig(RoutingConfig, process.env);
}
