import { histogramPercentile, type LatencyHistogram, mergeHistogram } from "@gw/metrics";
import type { SourceAggregate } from "./segment-queries.js";

/** Micro-USD to the API's USD numbers. */
export const usd = (micros: number): number => micros / 1_000_000;

/** Average latency rounded to 0.1 ms; 0 without calls. */
const average = (sum: number, calls: number): number =>
  calls === 0 ? 0 : Math.round((sum / calls) * 10) / 10;

export interface UsageSummary {
  totalCost: number;
  totalCalls: number;
  successCalls: number;
  blockedCalls: number;
  errorCalls: number;
  completionCalls: number;
  completionCost: number;
  routingCalls: number;
  routingCost: number;
  guardrailCalls: number;
  guardrailCost: number;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  totalTokens: number;
  unpricedCalls: number;
  avgLatencyMs: number;
  p95LatencyMs: number | null;
}

export interface ModelUsage {
  calls: number;
  cost: number;
  success: number;
  avgLatencyMs: number;
  p95LatencyMs: number | null;
  totalTokens: number;
  unpricedCalls: number;
}

export interface TimelineBucket {
  start: string;
  calls: number;
  cost: number;
  successCalls: number;
  errorCalls: number;
  blockedCalls: number;
  totalTokens: number;
}

export interface MergedReport {
  summary: UsageSummary;
  byModel: Record<string, ModelUsage>;
  timeline: TimelineBucket[];
}

/**
 * Merge what every source contributed: sums add up, histograms merge bucket by bucket, and the
 * percentiles are read from the merged histograms (exact below 100 ms, within 1 % above: see
 * @gw/metrics latency). Costs are summed in micro-USD and turned into USD once, at the end.
 * Records that never reached a model (refused before routing) count in the summary and the
 * timeline but have no byModel entry.
 */
export function mergePartials(partials: SourceAggregate[], bucketStarts: number[]): MergedReport {
  const micro = { total: 0, completion: 0, routing: 0, guardrail: 0 };
  const totals = {
    totalCalls: 0,
    successCalls: 0,
    blockedCalls: 0,
    errorCalls: 0,
    completionCalls: 0,
    routingCalls: 0,
    guardrailCalls: 0,
    inputTokens: 0,
    outputTokens: 0,
    cacheTokens: 0,
    totalTokens: 0,
    unpricedCalls: 0,
    durationMsSum: 0,
  };
  const models = new Map<
    string,
    {
      calls: number;
      costMicros: number;
      success: number;
      durationMsSum: number;
      totalTokens: number;
      unpricedCalls: number;
    }
  >();
  const buckets = new Map(
    bucketStarts.map((start) => [
      start,
      { calls: 0, costMicros: 0, successCalls: 0, errorCalls: 0, blockedCalls: 0, totalTokens: 0 },
    ]),
  );
  const latency = new Map<string, LatencyHistogram>();

  for (const partial of partials) {
    for (const cell of partial.cells) {
      const success = cell.outcome === "success" ? cell.calls : 0;
      const blocked = cell.outcome === "blocked" ? cell.calls : 0;
      const errors = cell.calls - success - blocked;
      totals.totalCalls += cell.calls;
      totals.successCalls += success;
      totals.blockedCalls += blocked;
      totals.errorCalls += errors;
      totals.inputTokens += cell.inputTokens;
      totals.outputTokens += cell.outputTokens;
      totals.cacheTokens += cell.cacheTokens;
      totals.totalTokens += cell.totalTokens;
      totals.unpricedCalls += cell.unpricedCalls;
      totals.durationMsSum += cell.durationMsSum;
      micro.total += cell.costMicros;
      if (cell.callType === "routing") {
        totals.routingCalls += cell.calls;
        micro.routing += cell.costMicros;
      } else if (cell.callType === "guardrail") {
        totals.guardrailCalls += cell.calls;
        micro.guardrail += cell.costMicros;
      } else {
        totals.completionCalls += cell.calls;
        micro.completion += cell.costMicros;
      }
      if (cell.modelId !== "") {
        const model = models.get(cell.modelId) ?? {
          calls: 0,
          costMicros: 0,
          success: 0,
          durationMsSum: 0,
          totalTokens: 0,
          unpricedCalls: 0,
        };
        model.calls += cell.calls;
        model.costMicros += cell.costMicros;
        model.success += success;
        model.durationMsSum += cell.durationMsSum;
        model.totalTokens += cell.totalTokens;
        model.unpricedCalls += cell.unpricedCalls;
        models.set(cell.modelId, model);
      }
      const bucket = buckets.get(cell.bucket);
      if (bucket) {
        bucket.calls += cell.calls;
        bucket.costMicros += cell.costMicros;
        bucket.successCalls += success;
        bucket.errorCalls += errors;
        bucket.blockedCalls += blocked;
        bucket.totalTokens += cell.totalTokens;
      }
    }
    for (const [model, histogram] of partial.latency)
      latency.set(model, mergeHistogram(latency.get(model) ?? {}, histogram));
  }

  const overall: LatencyHistogram = {};
  for (const histogram of latency.values()) mergeHistogram(overall, histogram);
  const { durationMsSum, ...counts } = totals;
  const summary: UsageSummary = {
    ...counts,
    totalCost: usd(micro.total),
    completionCost: usd(micro.completion),
    routingCost: usd(micro.routing),
    guardrailCost: usd(micro.guardrail),
    avgLatencyMs: average(durationMsSum, totals.totalCalls),
    p95LatencyMs: histogramPercentile(overall, 0.95),
  };
  const byModel: Record<string, ModelUsage> = {};
  for (const [id, model] of [...models].sort(([a], [b]) => a.localeCompare(b)))
    byModel[id] = {
      calls: model.calls,
      cost: usd(model.costMicros),
      success: model.success,
      avgLatencyMs: average(model.durationMsSum, model.calls),
      p95LatencyMs: histogramPercentile(latency.get(id) ?? {}, 0.95),
      totalTokens: model.totalTokens,
      unpricedCalls: model.unpricedCalls,
    };
  const timeline = [...buckets].map(([start, bucket]) => ({
    start: new Date(start).toISOString(),
    calls: bucket.calls,
    cost: usd(bucket.costMicros),
    successCalls: bucket.successCalls,
    errorCalls: bucket.errorCalls,
    blockedCalls: bucket.blockedCalls,
    totalTokens: bucket.totalTokens,
  }));
  return { summary, byModel, timeline };
}
