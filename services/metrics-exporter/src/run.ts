import type { ServiceContext } from "@gw/lifecycle";
import { openServiceInfra } from "@gw/lifecycle/infra";
import { metricKeyPrefix } from "@gw/metrics";
import type { MetricsExporterConfig } from "./config.js";
import { startMetricsConsumer } from "./consumer.js";
import { buildMetricsServer } from "./http.js";
import { startPushScheduler } from "./push-scheduler.js";

/**
 * The metrics exporter as its own process: usage records in from NATS (shared durable), the metric
 * state in Redis (shared by every replica and by admin-api's GET /api/metrics), integrations and
 * budgets from PostgreSQL, the Prometheus pull endpoint on its own port, pushes every interval.
 */
export async function startMetricsExporterService(
  config: MetricsExporterConfig,
  { logger, shutdown, version }: ServiceContext,
): Promise<void> {
  const infra = await openServiceInfra("metrics-exporter", config, logger, {
    database: true,
    counters: true,
    bus: true,
    secretKey: "the integrations' secrets",
  });
  const { db, counters, bus, secretKey } = infra;
  // The same namespace as the bus: deployments sharing one Redis never share metric state.
  const keyPrefix = metricKeyPrefix(config.BUS_NAMESPACE);
  const consumer = await startMetricsConsumer({
    bus,
    counters,
    logger,
    keyPrefix,
    maxInFlight: config.METRICS_EXPORTER_MAX_IN_FLIGHT,
  });
  const scheduler = startPushScheduler({
    prisma: db.prisma,
    counters,
    secretKey,
    logger,
    intervalMs: config.METRICS_PUSH_INTERVAL_MS,
    keyPrefix,
    allowMetadataUrls: config.SERVICE_ALLOW_METADATA_URLS,
  });
  const app = buildMetricsServer({ prisma: db.prisma, counters, secretKey, logger, version, keyPrefix });
  const address = await app.listen({
    host: config.METRICS_EXPORTER_HOST,
    port: config.METRICS_EXPORTER_PORT,
  });
  // Stop taking scrapes, finish the push round, drain the consumer (records in flight are counted
  // and acked), then disconnect.
  shutdown.register("http", () => app.close());
  shutdown.register("push-scheduler", () => scheduler.stop());
  shutdown.register("consumer", () => consumer.stop());
  infra.registerCloses(shutdown);
  logger.info({ address, pushIntervalMs: config.METRICS_PUSH_INTERVAL_MS }, "metrics-exporter listening");
}
