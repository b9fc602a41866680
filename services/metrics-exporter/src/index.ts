export { MetricsPushEnv } from "./config.js";
export { METRICS_EXPORTER_DURABLE, startMetricsConsumer } from "./consumer.js";
export { buildMetricsServer, type MetricsHttpDeps } from "./http.js";
export { type PushScheduler, type PushSchedulerDeps, startPushScheduler } from "./push-scheduler.js";
