import { BaseEnv, InfraEnv, loadConfig, SecretEnv } from "@gw/config";
import { z } from "zod";

/** Metric pushes: shared by the exporter and standalone (which runs the same scheduler in-process). */
export const MetricsPushEnv = z.object({
  /** How often push-type integrations are pushed (SPEC: 60 s); each interval once across replicas. */
  METRICS_PUSH_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000),
  /** "1": pushes may reach link-local/metadata addresses (never in a cloud deployment). */
  SERVICE_ALLOW_METADATA_URLS: z
    .string()
    .optional()
    .transform((value) => value === "1"),
});

export const MetricsExporterConfig = BaseEnv.extend(InfraEnv.shape)
  .extend(SecretEnv.shape)
  .extend(MetricsPushEnv.shape)
  .extend({
    /** The Prometheus pull endpoint (GET /metrics) and /health. 9464 is the exporter's usual port. */
    METRICS_EXPORTER_PORT: z.coerce.number().int().min(0).default(9464),
    METRICS_EXPORTER_HOST: z.string().default("0.0.0.0"),
    /** Usage records counted at once. */
    METRICS_EXPORTER_MAX_IN_FLIGHT: z.coerce.number().int().min(1).default(64),
  });
export type MetricsExporterConfig = z.infer<typeof MetricsExporterConfig>;

export function readMetricsExporterConfig(): MetricsExporterConfig {
  return loadConfig(MetricsExporterConfig, process.env);
}
