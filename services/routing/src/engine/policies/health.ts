import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, scoredReason, scoresEntry } from "./scoring.js";

/** Below any healthy model: a half_open circuit is on probation, tried only after the others. */
export const HALF_OPEN_SCORE = 0.1;

/**
 * Prefer models that fail least: score 1 - error rate. Without enough recent calls there is no
 * rate, and an unproven model is not penalised (score 1). Open circuits never get here (the
 * `circuit` filter drops them); half_open ones score HALF_OPEN_SCORE so a recovering upstream gets
 * a trickle of traffic as a fallback, not the first try.
 */
export const healthPolicy: RoutingPolicy = {
  name: "health",
  evaluate(candidates, context) {
    const scores = new Map<string, number>();
    const traced: CandidateScore[] = [];
    for (const { model } of candidates) {
      const health = context.health.get(model.id);
      const errorRate = health?.errorRate ?? null;
      const circuit = health?.circuit ?? "closed";
      let score: number;
      let reason: string;
      if (circuit === "half_open") {
        score = HALF_OPEN_SCORE;
        reason = "circuit half_open: on probation, tried after healthy models";
      } else if (circuit === "open") {
        score = 0;
        reason = "circuit open";
      } else if (errorRate === null) {
        score = 1;
        reason = "no error rate yet (too few calls): treated as healthy";
      } else {
        score = 1 - Math.min(1, Math.max(0, errorRate));
        reason = `error rate ${errorRate}`;
      }
      scores.set(model.id, score);
      traced.push({ modelId: model.id, score, reason, errorRate, calls: health?.calls ?? 0, circuit });
    }
    return { scores, excluded: new Map(), trace: [scoresEntry("health", scoredReason(traced), traced)] };
  },
};
