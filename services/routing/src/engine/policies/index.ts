import type { RoutingPolicy } from "../types.js";
import { capabilityPolicy } from "./capability.js";
import { cheapestPolicy } from "./cheapest.js";
import { contextPolicy } from "./context.js";
import { healthPolicy } from "./health.js";
import { llmPolicy } from "./llm.js";
import { orderPolicy } from "./order.js";
import { performancePolicy } from "./performance.js";
import { randomPolicy } from "./random.js";

export { HALF_OPEN_SCORE } from "./health.js";
export { DEFAULT_LLM_TIMEOUT_MS } from "./llm.js";
export { DEFAULT_WEIGHT, type WeightedItem, weightedOrder } from "./random.js";
export { linearScores, positionScores } from "./scoring.js";
export {
  capabilityPolicy,
  cheapestPolicy,
  contextPolicy,
  healthPolicy,
  llmPolicy,
  orderPolicy,
  performancePolicy,
  randomPolicy,
};

/** The policies a project can name in `policies`, by name. */
export const POLICIES: Record<string, RoutingPolicy> = {
  order: orderPolicy,
  health: healthPolicy,
  cheapest: cheapestPolicy,
  random: randomPolicy,
  performance: performancePolicy,
  context: contextPolicy,
  capability: capabilityPolicy,
  llm: llmPolicy,
};

/** Applied when a project configures no policy: the project's model order. */
export const DEFAULT_POLICIES: readonly string[] = ["order"];
