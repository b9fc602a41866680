import { contextNeed, declaredContextWindow } from "../context-window.js";
import { defineFilter } from "./filter.js";

/**
 * The prompt plus the output the request may produce must fit the model's context window, or the
 * upstream would reject it (a wasted attempt). Models without a declared window pass.
 */
export const contextFilter = defineFilter(
  "context",
  (model, context) => {
    const window = declaredContextWindow(model);
    if (window === null) return null;
    const need = contextNeed(model, context.features);
    if (need.totalTokens <= window) return null;
    return {
      excluded: `needs ${need.totalTokens} tokens, context window is ${window}`,
      details: { ...need, contextWindow: window },
    };
  },
  (context) => ({
    estimatedInputTokens: context.features.estimatedInputTokens,
    maxTokens: context.features.maxTokens,
  }),
);
