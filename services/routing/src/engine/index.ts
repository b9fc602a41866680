export { type CapabilityMatch, canonicalCapability, matchCapabilities } from "./capabilities.js";
export { contextNeed, declaredContextWindow } from "./context-window.js";
export {
  budgetFilter,
  capabilitiesFilter,
  circuitFilter,
  contextFilter,
  cooldownFilter,
  defineFilter,
  enabledFilter,
  FILTERS,
  type FilterVerdict,
} from "./filters/index.js";
export {
  capabilityPolicy,
  cheapestPolicy,
  contextPolicy,
  DEFAULT_LLM_TIMEOUT_MS,
  DEFAULT_POLICIES,
  DEFAULT_WEIGHT,
  HALF_OPEN_SCORE,
  healthPolicy,
  linearScores,
  llmPolicy,
  orderPolicy,
  POLICIES,
  performancePolicy,
  positionScores,
  randomPolicy,
  type WeightedItem,
  weightedOrder,
} from "./policies/index.js";
export { type AppliedPrices, pricesFor, type RequestCost, requestCost } from "./pricing-tiers.js";
export { type DecideRouteOptions, decideRoute } from "./route-engine.js";
export { traceEntry } from "./trace.js";
export type {
  PolicyResult,
  RouteDecision,
  RouteFeatures,
  RoutingCandidate,
  RoutingContext,
  RoutingFilter,
  RoutingModelCall,
  RoutingPolicy,
} from "./types.js";
