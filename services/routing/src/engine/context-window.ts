import type { ModelConfig } from "@gw/config-store";
import type { RouteFeatures } from "./types.js";

/**
 * How much of a model's context window this request needs: the counted input plus the output the
 * request may ask for (its max_tokens, else the model's own output limit, else nothing). Unlike
 * the cost estimate there is no default output bound here: guessing one would exclude models for a
 * limit the request never set.
 */
export function contextNeed(
  model: ModelConfig,
  features: Pick<RouteFeatures, "estimatedInputTokens" | "maxTokens">,
) {
  const outputTokens = features.maxTokens > 0 ? features.maxTokens : (model.maxOutputTokens ?? 0);
  return {
    inputTokens: features.estimatedInputTokens,
    outputTokens,
    totalTokens: features.estimatedInputTokens + outputTokens,
  };
}

/** The model's context window, or null when it declares none (a zero or negative value means unset). */
export function declaredContextWindow(model: ModelConfig): number | null {
  return model.contextWindow != null && model.contextWindow > 0 ? model.contextWindow : null;
}
