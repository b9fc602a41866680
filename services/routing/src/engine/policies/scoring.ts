import type { TraceEntry } from "@gw/proto";
import { traceEntry } from "../trace.js";

/**
 * Scores by position in an ordering: the first gets 1, the last 0, evenly spaced between; a lone
 * id gets 1. Used by the policies that produce an order rather than a measure (order, random, llm).
 */
export function positionScores(ids: readonly string[]): Map<string, number> {
  const scores = new Map<string, number>();
  const last = ids.length - 1;
  ids.forEach((id, index) => {
    scores.set(id, last === 0 ? 1 : 1 - index / last);
  });
  return scores;
}

/**
 * Scores a measure linearly between the best value (1) and the worst (0). When every value is the
 * same, all score 1: nothing distinguishes them, so the next policy or the project order decides.
 */
export function linearScores(values: Map<string, number>, better: "lower" | "higher"): Map<string, number> {
  const scores = new Map<string, number>();
  const all = [...values.values()];
  if (all.length === 0) return scores;
  const min = Math.min(...all);
  const max = Math.max(...all);
  for (const [id, value] of values) {
    if (max === min) scores.set(id, 1);
    else scores.set(id, better === "lower" ? (max - value) / (max - min) : (value - min) / (max - min));
  }
  return scores;
}

/** A policy's line about one candidate: "scored" with its score, or "unscored" (ranks after scored ones). */
export function candidateEntry(
  policy: string,
  modelId: string,
  score: number | null,
  reason: string,
  details: Record<string, unknown> = {},
): TraceEntry {
  return traceEntry({
    stage: "policy",
    name: policy,
    outcome: score === null ? "unscored" : "scored",
    reason,
    modelId,
    details: { ...details, score },
  });
}

/** A policy's summary line (not about one model). */
export function policyEntry(
  policy: string,
  outcome: string,
  reason: string,
  details?: Record<string, unknown>,
): TraceEntry {
  return traceEntry({ stage: "policy", name: policy, outcome, reason, details });
}
