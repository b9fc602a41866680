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

/**
 * How a policy saw one candidate: its score (null = unscored, ranks after scored ones), why, and
 * the inputs the score was made from (policy-specific fields after these three).
 */
export interface CandidateScore {
  modelId: string;
  score: number | null;
  reason: string;
  [input: string]: unknown;
}

/**
 * A policy's one trace entry: its own summary fields plus `candidates`, every candidate's score,
 * reason and inputs in one list. One entry (one JSON text) per policy, not one per candidate, so
 * the trace costs the same handful of entries however many models a project has. The outcome is
 * "scored" when at least one candidate got a score, else "unscored".
 */
export function scoresEntry(
  policy: string,
  reason: string,
  candidates: CandidateScore[],
  summary?: Record<string, unknown>,
): TraceEntry {
  let scored = false;
  for (let i = 0; i < candidates.length && !scored; i++) scored = candidates[i]!.score !== null;
  return traceEntry({
    stage: "policy",
    name: policy,
    outcome: scored ? "scored" : "unscored",
    reason,
    details: summary === undefined ? { candidates } : { ...summary, candidates },
  });
}

/** The default reason of a policy's entry: how many of its candidates it scored. */
export function scoredReason(candidates: readonly CandidateScore[]): string {
  let scored = 0;
  for (const candidate of candidates) if (candidate.score !== null) scored++;
  return `${scored} of ${candidates.length} candidates scored`;
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
