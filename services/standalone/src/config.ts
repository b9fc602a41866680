import { BaseEnv, GrpcEnv, HttpEnv, InfraEnv, loadConfig, SecretEnv } from "@gw/config";
import { z } from "zod";

/**
 * Standalone: every service in one process. Each of DATABASE_URL, REDIS_URL, NATS_URL picks the
 * real server when set; unset means the embedded adapter with data in SERVICE_DATA_DIR.
 */
export const StandaloneConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(GrpcEnv.shape)
  .extend(HttpEnv.shape)
  .extend(SecretEnv.shape)
  .extend({
    OUTBOX_MAX_PENDING: z.coerce.number().int().min(1).default(100_000),
    DASHBOARD_ENABLED: z.enum(["0", "1", "true", "false"]).default("1"),
  });
export type StandaloneConfig = z.infer<typeof StandaloneConfig>;

export function readStandaloneConfig(
  env: Record<string, string | undefined> = process.env,
): StandaloneConfig {
  return loadConfig(StandaloneConfig, env);
}
