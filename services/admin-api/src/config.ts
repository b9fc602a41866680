import { BaseEnv, GrpcEnv, InfraEnv, loadConfig, SecretEnv } from "@gw/config";
import { z } from "zod";

/** admin-api as its own process (distributed mode); ingress forwards `/api/*` to it. */
export const AdminApiConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(GrpcEnv.shape)
  .extend(SecretEnv.shape)
  .extend({
    /** Where admin-api listens. Ingress reaches it through ADMIN_API_URL. */
    ADMIN_API_PORT: z.coerce.number().int().min(0).default(3001),
    ADMIN_API_HOST: z.string().default("0.0.0.0"),
    OUTBOX_MAX_PENDING: z.coerce.number().int().min(1).default(100_000),
    /** Largest accepted management request body, bytes. */
    ADMIN_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .default(1024 * 1024),
  });
export type AdminApiConfig = z.infer<typeof AdminApiConfig>;

export function readAdminApiConfig(): AdminApiConfig {
  return loadConfig(AdminApiConfig, process.env);
}
