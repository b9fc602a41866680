import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, linearScores, scoredReason, scoresEntry } from "./scoring.js";

/** Neither rewarded nor punished: a model without latency data sits between fastest and slowest. */
export const UNKNOWN_LATENCY_SCORE = 0.5;

/**
 * Prefer the model that answers fastest: mean time to response headers of recent successful
 * calls (shared health). Fastest scores 1, slowest 0, linear between.
 */
export const performancePolicy: RoutingPolicy = {
  name: "performance",
  evaluate(candidates, context) {
    const latencies = new Map<string, number>();
    for (const { model } of candidates) {
      const latencyMs = context.health.get(model.id)?.latencyMs;
      if (latencyMs != null) latencies.set(model.id, latencyMs);
    }
    const measured = linearScores(latencies, "lower");
    const scores = new Map<string, number>();
    const traced: CandidateScore[] = [];
    for (const { model } of candidates) {
      const latencyMs = latencies.get(model.id);
      if (latencyMs === undefined) {
        scores.set(model.id, UNKNOWN_LATENCY_SCORE);
        traced.push({
          modelId: model.id,
          score: UNKNOWN_LATENCY_SCORE,
          reason: "no latency data",
          latencyMs: null,
        });
        continue;
      }
      const score = measured.get(model.id) ?? UNKNOWN_LATENCY_SCORE;
      scores.set(model.id, score);
      traced.push({ modelId: model.id, score, reason: `mean latency ${latencyMs} ms`, latencyMs });
    }
    return {
      scores,
      excluded: new Map(),
      trace: [scoresEntry("performance", scoredReason(traced), traced)],
    };
  },
};
