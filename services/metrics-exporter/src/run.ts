import { createBus, ensureProjectStreams } from "@gw/bus";
import { requireDistributedUrls } from "@gw/config";
import { createCounterStore } from "@gw/counters";
import { createDatabase } from "@gw/db";
import type { ServiceContext } from "@gw/lifecycle";
import { metricKeyPrefix } from "@gw/metrics";
import { parseSecretKey } from "@gw/security";
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
  requireDistributedUrls("metrics-exporter", config, ["DATABASE_URL", "REDIS_URL", "NATS_URL"]);
  if (!config.SERVICE_SECRET_KEY)
    throw new Error(
      "metrics-exporter needs SERVICE_SECRET_KEY (32 bytes, base64): the integrations' secrets",
    );
  const secretKey = parseSecretKey(config.SERVICE_SECRET_KEY);
  // The same namespace as the bus: deployments sharing one Redis never share metric state.
  const keyPrefix = metricKeyPrefix(config.BUS_NAMESPACE);
  const db = await createDatabase({ url: config.DATABASE_URL!, logger });
  await db.migrate();
  const counters = createCounterStore({
    redisUrl: config.REDIS_URL!,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  const bus = await createBus({
    natsUrl: config.NATS_URL!,
    namespace: config.BUS_NAMESPACE,
    name: "metrics-exporter",
    logger,
  });
  await ensureProjectStreams(bus);
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
  shutdown.register("bus", () => bus.close());
  shutdown.register("counters", () => counters.close());
  shutdown.register("database", () => db.close());
  logger.info({ address, pushIntervalMs: config.METRICS_PUSH_INTERVAL_MS }, "metrics-exporter listening");
}
