import { BudgetEnv, loadConfig } from "@gw/config";
import { IngressConfig } from "@gw/service-ingress";
import { MetricsPushEnv } from "@gw/service-metrics-exporter";
import type { z } from "zod";

/**
 * Standalone: every service in one process, configured like ingress (it serves the same port).
 * Each of DATABASE_URL, REDIS_URL, NATS_URL picks the real server when set; unset means the
 * embedded adapter with data in SERVICE_DATA_DIR.
 */
export const StandaloneConfig = IngressConfig.extend(BudgetEnv.shape).extend(MetricsPushEnv.shape);
export type StandaloneConfig = z.infer<typeof StandaloneConfig>;

export function readStandaloneConfig(
  env: Record<string, string | undefined> = process.env,
): StandaloneConfig {
  return loadConfig(StandaloneConfig, env);
}
