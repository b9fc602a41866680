import type { ModelConfig, ProjectConfig } from "@gw/config-store";
import type { TraceEntry } from "@gw/proto";
import { modelConfig, projectConfig } from "@gw/testing";
import type { ModelHealth } from "../health/types.js";
import type { RoutingCandidate, RoutingContext } from "./types.js";

/** Builders for the engine's tests: a valid object with the fields a test cares about overridden. */

export function model(id: string, overrides: Partial<ModelConfig> = {}): ModelConfig {
  return modelConfig(id, overrides);
}

export function project(models: ModelConfig[], overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  return projectConfig({ name: "Project", slug: "project", models, ...overrides });
}

export function health(overrides: Partial<ModelHealth> = {}): ModelHealth {
  return { errorRate: null, calls: 0, circuit: "closed", latencyMs: null, ...overrides };
}

export const NOW = 1_800_000_000_000;

export function context(
  models: ModelConfig[],
  overrides: Partial<Omit<RoutingContext, "features">> & {
    features?: Partial<RoutingContext["features"]>;
  } = {},
): RoutingContext {
  const { features, ...rest } = overrides;
  return {
    project: project(models),
    health: new Map(),
    budgetExhausted: new Set(),
    monthlyTokens: new Map(),
    now: NOW,
    random: () => 0,
    ...rest,
    features: {
      estimatedInputTokens: 100,
      requiredCapabilities: [],
      maxTokens: 0,
      conversationId: "",
      promptExcerpt: "",
      tokenId: "tok_1",
      traceId: "trace_1",
      ...features,
    },
  };
}

export function candidates(models: ModelConfig[]): RoutingCandidate[] {
  return models.map((m) => ({ model: m, costEstimateMicros: null }));
}

export function ids(models: { id: string }[] | RoutingCandidate[]): string[] {
  return models.map((m) => ("model" in m ? m.model.id : m.id));
}

export function details(entry: TraceEntry | undefined): Record<string, unknown> {
  return entry?.detailsJson ? (JSON.parse(entry.detailsJson) as Record<string, unknown>) : {};
}

/** What a policy's entry traces about its candidates (`details.candidates`), in the entry's order. */
export function tracedCandidates(entry: TraceEntry | undefined): Record<string, unknown>[] {
  const candidates = details(entry).candidates;
  return Array.isArray(candidates) ? (candidates as Record<string, unknown>[]) : [];
}

/** The record a policy's entry traces about one candidate (score, reason, inputs), if any. */
export function tracedCandidate(
  entry: TraceEntry | undefined,
  modelId: string,
): Record<string, unknown> | undefined {
  return tracedCandidates(entry).find((candidate) => candidate.modelId === modelId);
}

/** Scores as a plain object, for deepEqual. */
export function plain(scores: Map<string, number>): Record<string, number> {
  return Object.fromEntries(scores);
}
