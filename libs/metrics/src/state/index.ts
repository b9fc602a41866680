export { readBudgetRatios, usedRatio } from "./budget-ratios.js";
export {
  LATENCY_KEY_TTL_MS,
  LATENCY_WINDOW_MINUTES,
  type MetricKeys,
  metricKeyPrefix,
  metricKeys,
  SEEN_TTL_MS,
} from "./keys.js";
export {
  answerPrometheusPull,
  bearerTokenMatches,
  type PullAccess,
  type PullAnswer,
  type PullDeps,
  prometheusPullAccess,
} from "./pull-access.js";
export {
  minSpacing,
  type PushIntegrationDeps,
  type PushIntegrationOptions,
  type PushIntegrationResult,
  pushIntegration,
} from "./push-integration.js";
export { type ReadSnapshotDeps, readMetricSnapshot } from "./read-snapshot.js";
export { type MetricStateOptions, recordUsageMetrics } from "./record-usage.js";
