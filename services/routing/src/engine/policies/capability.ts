import { canonicalCapability, matchCapabilities } from "../capabilities.js";
import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, scoredReason, scoresEntry } from "./scoring.js";

/** Declared support beats unknown support: the `capabilities` filter lets undeclared models through. */
export const DECLARED_SCORE = 1;
export const UNDECLARED_SCORE = 0.5;

/**
 * Prefer models that explicitly list every capability the request needs over models that list
 * none (which the filter lets through as "unknown"). When the request needs nothing, every model
 * scores 1. A model listing some capabilities but missing a required one (only possible when the
 * filter did not run) scores 0.
 */
export const capabilityPolicy: RoutingPolicy = {
  name: "capability",
  evaluate(candidates, context) {
    const required = context.features.requiredCapabilities.map(canonicalCapability);
    const scores = new Map<string, number>();
    const traced: CandidateScore[] = [];
    for (const { model } of candidates) {
      let score: number;
      let reason: string;
      if (required.length === 0) {
        score = DECLARED_SCORE;
        reason = "the request needs no capability";
      } else {
        const match = matchCapabilities(model.capabilities, required);
        if (!match.declared) {
          score = UNDECLARED_SCORE;
          reason = "capabilities not declared";
        } else if (match.missing.length > 0) {
          score = 0;
          reason = `missing capabilities: ${match.missing.join(", ")}`;
        } else {
          score = DECLARED_SCORE;
          reason = "declares every required capability";
        }
      }
      scores.set(model.id, score);
      traced.push({ modelId: model.id, score, reason, capabilities: model.capabilities });
    }
    return {
      scores,
      excluded: new Map(),
      trace: [scoresEntry("capability", scoredReason(traced), traced, { required })],
    };
  },
};
