/**
 * The six exported metrics of SPEC.md ("Metric export") and the snapshot every wire format is
 * rendered from. A snapshot is read from the shared state (libs/metrics state, in the counter
 * store), so every exporter replica and the admin API render the same figures.
 */
export type MetricType = "counter" | "gauge";

export interface MetricDefinition {
  name: string;
  type: MetricType;
  help: string;
  /** Label names, in the order formats list them. */
  labels: readonly string[];
}

export const METRICS = {
  requests: {
    name: "service_requests_total",
    type: "counter",
    help: "Requests (usage records) by project and model.",
    labels: ["project", "model"],
  },
  tokens: {
    name: "service_tokens_total",
    type: "counter",
    help: "Tokens consumed, by type (input or output), project and model.",
    labels: ["type", "project", "model"],
  },
  cost: {
    name: "service_cost_usd_total",
    type: "gauge",
    help: "Estimated cost in USD by project and model, since the metric state was created.",
    labels: ["project", "model"],
  },
  latencyP50: {
    name: "service_request_duration_p50_ms",
    type: "gauge",
    help: "Median request latency in ms by project, over the recent latency window.",
    labels: ["project"],
  },
  latencyP95: {
    name: "service_request_duration_p95_ms",
    type: "gauge",
    help: "95th percentile request latency in ms by project, over the recent latency window.",
    labels: ["project"],
  },
  budgetUsed: {
    name: "service_budget_used_ratio",
    type: "gauge",
    help: "Budget consumption 0 to 1 by project: the highest ratio of current usage to limit over its budgets.",
    labels: ["project"],
  },
} as const satisfies Record<string, MetricDefinition>;

export const METRIC_LIST: readonly MetricDefinition[] = Object.values(METRICS);

export interface MetricSample {
  /** One of METRICS' names. */
  name: string;
  type: MetricType;
  labels: Record<string, string>;
  value: number;
}

export interface MetricSnapshot {
  /** When the snapshot was read (every sample's timestamp). */
  at: Date;
  /** When the cumulative counters started (the metric state's creation): OTLP's start time. */
  startedAt: Date;
  samples: MetricSample[];
}

/** A stable identity for one series (name + sorted labels), e.g. to compute deltas between pushes. */
export function seriesKey(sample: Pick<MetricSample, "name" | "labels">): string {
  const labels = Object.entries(sample.labels).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([sample.name, labels]);
}
