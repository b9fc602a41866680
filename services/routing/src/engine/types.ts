import type { ModelConfig, ProjectConfig } from "@gw/config-store";
import type { TraceEntry } from "@gw/proto";
import type { ModelHealth } from "../health/types.js";

/**
 * The routing engine's inputs and parts. The engine is pure: everything it reads (project,
 * request features, shared health, budget exhaustion, monthly volumes for pricing tiers, the
 * clock, randomness, the routing model) is passed in, so every filter and policy is unit-testable
 * and every decision is explainable from its trace.
 */

/** What routing knows about one request (from `RouteRequest`). */
export interface RouteFeatures {
  estimatedInputTokens: number;
  /** `functionCalling`, `vision`, `json` (API names; stored aliases are mapped by the filter). */
  requiredCapabilities: string[];
  /** The request's output limit; 0 when unset. */
  maxTokens: number;
  conversationId: string;
  /** The last user text of the request, truncated, for the `llm` policy ("" when none). */
  promptExcerpt: string;
  /** Who asks, for the routing model's own usage record and budgets (not routing inputs). */
  tokenId: string;
  traceId: string;
}

/** Asks the project's routing model to rank candidates (the `llm` policy); see policies/llm.ts. */
export type RoutingModelCall = (input: {
  project: ProjectConfig;
  candidates: ModelConfig[];
  features: RouteFeatures;
  signal: AbortSignal;
}) => Promise<string[]>;

export interface RoutingContext {
  project: ProjectConfig;
  features: RouteFeatures;
  /** By model id; a model absent from the map is healthy. */
  health: Map<string, ModelHealth>;
  /** Models whose own budget is exhausted (from the budget service). */
  budgetExhausted: Set<string>;
  /** Tokens each model used in the current calendar month (pricing tiers); absent = 0. */
  monthlyTokens: Map<string, number>;
  now: number;
  /** Uniform in [0, 1). Injected so `random` is testable. */
  random: () => number;
  /** Undefined when no routing model is configured or callable. */
  callRoutingModel?: RoutingModelCall;
}

/** A model still in the running, with its worst-case cost for this request (null = unpriced). */
export interface RoutingCandidate {
  model: ModelConfig;
  costEstimateMicros: number | null;
}

/** A hard constraint. Filters run before policies; a model a filter excludes is never tried. */
export interface RoutingFilter {
  name: string;
  apply(models: ModelConfig[], context: RoutingContext): { kept: ModelConfig[]; trace: TraceEntry[] };
}

/**
 * A policy scores candidates (0..1, higher is better; a candidate without a score ranks after
 * scored ones) and may exclude some, each with a reason (the engine traces every exclusion). Its
 * `trace` explains the scores in one entry for all candidates (`scoresEntry`), not one per
 * candidate, so the trace does not grow with the project's models. Policies are
 * applied in the project's `policies` order: the first policy's score orders the list, later
 * policies break its ties, the project's model order breaks the rest. A policy's exclusions are
 * ignored (and traced as ignored) when they would leave no candidate: a policy never fails a
 * request that the filters let through.
 */
export interface PolicyResult {
  scores: Map<string, number>;
  excluded: Map<string, string>;
  trace: TraceEntry[];
}

export interface RoutingPolicy {
  name: string;
  evaluate(candidates: RoutingCandidate[], context: RoutingContext): PolicyResult | Promise<PolicyResult>;
}

export interface RouteDecision {
  /** In the order ingress tries them. Empty = every model was filtered out (503 no_candidates). */
  candidates: RoutingCandidate[];
  trace: TraceEntry[];
  /** The policies applied, in order (`order` when the project configures none). */
  policies: string[];
}
