import { BaseEnv, GrpcEnv, HttpEnv, InfraEnv, loadConfig, SecretEnv } from "@gw/config";
import { z } from "zod";

export const IngressConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(GrpcEnv.shape)
  .extend(HttpEnv.shape)
  .extend(SecretEnv.shape)
  .extend({
    /** Usage records waiting for the bus before ingress refuses new calls with 503. */
    OUTBOX_MAX_PENDING: z.coerce.number().int().min(1).default(100_000),
    /** Distributed mode: where admin-api listens; `/api/*` is forwarded there. Unset = no management API. */
    ADMIN_API_URL: z.string().url().optional(),
  });
export type IngressConfig = z.infer<typeof IngressConfig>;

export function readIngressConfig(): IngressConfig {
  return loadConfig(IngressConfig, process.env);
}
