import type { TraceEntry } from "@gw/proto";

/**
 * One trace entry. Every filter and policy explains itself through these, so a decision can be
 * read back from the trace alone: `details` carries the inputs and scores as JSON text (the proto
 * field is a string so the trace stays schema-free for new policies).
 */
export function traceEntry(entry: {
  stage: "filter" | "policy";
  name: string;
  outcome: string;
  reason: string;
  modelId?: string;
  details?: Record<string, unknown>;
  durationMs?: number;
}): TraceEntry {
  return {
    stage: entry.stage,
    name: entry.name,
    outcome: entry.outcome,
    reason: entry.reason,
    modelId: entry.modelId ?? "",
    detailsJson: entry.details ? JSON.stringify(entry.details) : "",
    durationMs: entry.durationMs ?? 0,
  };
}

/** Milliseconds since `started` (a `performance.now()` reading), rounded to microseconds for the trace. */
export function elapsedMs(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
