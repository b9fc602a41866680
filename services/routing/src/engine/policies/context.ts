import { contextNeed, declaredContextWindow } from "../context-window.js";
import type { RoutingPolicy } from "../types.js";
import { candidateEntry } from "./scoring.js";

/** A model without a declared window: it may fit, it may not. */
export const UNKNOWN_WINDOW_SCORE = 0.5;

/**
 * Prefer the model whose context window leaves the most room after this request (prompt plus the
 * output it may ask for): score = free share of the window, 0..1. For long prompts this steers
 * away from models the request barely fits, where a slightly larger tokenisation upstream than our
 * estimate would fail the call.
 */
export const contextPolicy: RoutingPolicy = {
  name: "context",
  evaluate(candidates, context) {
    const scores = new Map<string, number>();
    const trace = candidates.map(({ model }) => {
      const need = contextNeed(model, context.features);
      const window = declaredContextWindow(model);
      if (window === null) {
        scores.set(model.id, UNKNOWN_WINDOW_SCORE);
        return candidateEntry("context", model.id, UNKNOWN_WINDOW_SCORE, "context window not declared", {
          ...need,
          contextWindow: null,
        });
      }
      const headroom = Math.min(1, Math.max(0, (window - need.totalTokens) / window));
      scores.set(model.id, headroom);
      return candidateEntry(
        "context",
        model.id,
        headroom,
        `${window - need.totalTokens} of ${window} tokens left`,
        { ...need, contextWindow: window, headroom },
      );
    });
    return { scores, excluded: new Map(), trace };
  },
};
