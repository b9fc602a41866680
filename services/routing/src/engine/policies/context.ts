import { contextNeed, declaredContextWindow } from "../context-window.js";
import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, scoredReason, scoresEntry } from "./scoring.js";

/** A model without a declared window: it may fit, it may not. */
export const UNKNOWN_WINDOW_SCORE = 0.5;

/**
 * Prefer the model whose context window leaves the most room after this request (prompt plus the
 * output it may ask for): score = free share of the window (the headroom), 0..1. For long prompts
 * this steers away from models the request barely fits, where a slightly larger tokenisation
 * upstream than our estimate would fail the call.
 */
export const contextPolicy: RoutingPolicy = {
  name: "context",
  evaluate(candidates, context) {
    const scores = new Map<string, number>();
    const traced: CandidateScore[] = [];
    for (const { model } of candidates) {
      const need = contextNeed(model, context.features);
      const window = declaredContextWindow(model);
      if (window === null) {
        scores.set(model.id, UNKNOWN_WINDOW_SCORE);
        traced.push({
          modelId: model.id,
          score: UNKNOWN_WINDOW_SCORE,
          reason: "context window not declared",
          outputTokens: need.outputTokens,
          totalTokens: need.totalTokens,
          contextWindow: null,
        });
        continue;
      }
      const headroom = Math.min(1, Math.max(0, (window - need.totalTokens) / window));
      scores.set(model.id, headroom);
      traced.push({
        modelId: model.id,
        score: headroom,
        reason: `${window - need.totalTokens} of ${window} tokens left`,
        outputTokens: need.outputTokens,
        totalTokens: need.totalTokens,
        contextWindow: window,
      });
    }
    // The input is the same for every candidate: traced once.
    const summary = { inputTokens: context.features.estimatedInputTokens };
    return {
      scores,
      excluded: new Map(),
      trace: [scoresEntry("context", scoredReason(traced), traced, summary)],
    };
  },
};
