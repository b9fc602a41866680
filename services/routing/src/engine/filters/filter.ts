import type { ModelConfig } from "@gw/config-store";
import type { TraceEntry } from "@gw/proto";
import { elapsedMs, traceEntry } from "../trace.js";
import type { RoutingContext, RoutingFilter } from "../types.js";

/** What a filter says about one model. */
export interface FilterVerdict {
  /** Why the model is excluded; absent = kept. */
  excluded?: string;
  /** A kept model worth a line in the trace anyway (e.g. capabilities not declared). */
  note?: string;
  /** The inputs the verdict was made from, for the trace. */
  details?: Record<string, unknown>;
}

/**
 * Builds a filter from a per-model judgement, so every filter traces the same way: one entry per
 * excluded model (outcome "excluded" with the reason and inputs), one per noted model (outcome
 * "passed"), and one summary entry (outcome "passed") listing what was kept and what was not.
 */
export function defineFilter(
  name: string,
  judge: (model: ModelConfig, context: RoutingContext) => FilterVerdict | null,
  summaryInputs?: (context: RoutingContext) => Record<string, unknown>,
): RoutingFilter {
  return {
    name,
    apply(models, context) {
      const started = performance.now();
      const kept: ModelConfig[] = [];
      const excluded: string[] = [];
      const trace: TraceEntry[] = [];
      for (const model of models) {
        const verdict = judge(model, context);
        if (verdict?.excluded !== undefined) {
          excluded.push(model.id);
          trace.push(
            traceEntry({
              stage: "filter",
              name,
              outcome: "excluded",
              reason: verdict.excluded,
              modelId: model.id,
              details: verdict.details,
            }),
          );
          continue;
        }
        kept.push(model);
        if (verdict?.note !== undefined)
          trace.push(
            traceEntry({
              stage: "filter",
              name,
              outcome: "passed",
              reason: verdict.note,
              modelId: model.id,
              details: verdict.details,
            }),
          );
      }
      trace.push(
        traceEntry({
          stage: "filter",
          name,
          outcome: "passed",
          reason: `${kept.length} of ${models.length} models kept`,
          details: { ...summaryInputs?.(context), kept: kept.map((m) => m.id), excluded },
          durationMs: elapsedMs(started),
        }),
      );
      return { kept, trace };
    },
  };
}
