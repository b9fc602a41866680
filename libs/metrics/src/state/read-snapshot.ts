import type { CounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import { histogramPercentile, type LatencyHistogram, mergeHistogram } from "../latency.js";
import { METRIC_LIST, METRICS, type MetricSample, type MetricSnapshot, seriesKey } from "../samples.js";
import { readBudgetRatios } from "./budget-ratios.js";
import { LATENCY_WINDOW_MINUTES, MINUTE_MS, metricKeys, minuteStart } from "./keys.js";
import { parseLatencyField, parseSeriesField } from "./series-fields.js";

export interface ReadSnapshotDeps {
  counters: CounterStore;
  prisma: PrismaClient;
  now?: () => number;
  /** As in recordUsageMetrics: the prefix of the deployment's metric keys. */
  keyPrefix?: string;
}

/**
 * The six metrics as they stand, from the shared state: every replica (and the admin API) reading
 * at the same moment gets the same samples, in the same order (metric order of METRICS, then series
 * key), so renderings are byte-identical across replicas.
 */
export async function readMetricSnapshot(deps: ReadSnapshotDeps): Promise<MetricSnapshot> {
  const at = (deps.now ?? Date.now)();
  const keys = metricKeys(deps.keyPrefix);
  const currentMinute = minuteStart(at);
  const minutes = Array.from({ length: LATENCY_WINDOW_MINUTES }, (_, i) => currentMinute - i * MINUTE_MS);
  const [series, epoch, latency, ratios] = await Promise.all([
    deps.counters.hashGetAll(keys.series),
    deps.counters.hashGetAll(keys.epoch),
    Promise.all(minutes.map((minute) => deps.counters.hashGetAll(keys.latency(minute)))),
    readBudgetRatios(deps.counters, deps.prisma, at),
  ]);
  const samples: MetricSample[] = [];
  for (const [field, value] of Object.entries(series)) {
    const sample = parseSeriesField(field);
    if (!sample) continue;
    samples.push({ ...sample, value: sample.name === METRICS.cost.name ? value / 1_000_000 : value });
  }
  for (const [project, histogram] of latencyByProject(latency)) {
    const p50 = histogramPercentile(histogram, 0.5);
    const p95 = histogramPercentile(histogram, 0.95);
    if (p50 !== null) samples.push(gauge(METRICS.latencyP50.name, project, p50));
    if (p95 !== null) samples.push(gauge(METRICS.latencyP95.name, project, p95));
  }
  for (const [project, ratio] of ratios) samples.push(gauge(METRICS.budgetUsed.name, project, ratio));
  const order = new Map(METRIC_LIST.map((metric, index) => [metric.name, index]));
  const keyed = samples.map((sample) => ({ sample, key: seriesKey(sample) }));
  keyed.sort(
    (a, b) =>
      (order.get(a.sample.name) ?? 0) - (order.get(b.sample.name) ?? 0) ||
      (a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
  // Before anything was counted there is no epoch: the series (none yet) start now.
  const startedAtMs = epoch.startedAtMs ?? at;
  return {
    at: new Date(at),
    startedAt: new Date(Math.min(startedAtMs, at)),
    samples: keyed.map((k) => k.sample),
  };
}

function gauge(name: string, project: string, value: number): MetricSample {
  return { name, type: "gauge", labels: { project }, value };
}

function latencyByProject(minutes: Record<string, number>[]): Map<string, LatencyHistogram> {
  const byProject = new Map<string, LatencyHistogram>();
  for (const minute of minutes) {
    for (const [field, calls] of Object.entries(minute)) {
      const parsed = parseLatencyField(field);
      if (!parsed) continue;
      const histogram = byProject.get(parsed.project) ?? {};
      mergeHistogram(histogram, { [parsed.bucket]: calls });
      byProject.set(parsed.project, histogram);
    }
  }
  return byProject;
}
