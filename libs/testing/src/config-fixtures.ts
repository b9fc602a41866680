import type { ModelConfig, ProjectConfig, TokenConfig } from "@gw/config-store";

/**
 * Valid configuration objects as the hot path sees them (libs/config-store types), with only the
 * fields a test cares about overridden. One set of builders for every service's tests, so a new
 * config field is added in one place.
 */

export function modelConfig(id: string, overrides: Partial<ModelConfig> = {}): ModelConfig {
  return {
    id,
    provider: "openai",
    upstreamModel: id,
    apiKeyEncrypted: null,
    inputPrice: 0.001,
    outputPrice: 0.002,
    cachePrice: null,
    contextWindow: null,
    maxOutputTokens: null,
    capabilities: [],
    enabled: true,
    baseUrl: null,
    pricingTiers: [],
    createdAt: 0,
    limits: [],
    ...overrides,
  };
}

export function projectConfig(overrides: Partial<ProjectConfig> = {}): ProjectConfig {
  const id = overrides.id ?? "proj_1";
  return {
    id,
    name: id,
    slug: id.replace("proj_", "p-"),
    defaultTimeoutMs: null,
    policies: [],
    budgets: [],
    spendGroupId: null,
    routing: {},
    models: [],
    ...overrides,
  };
}

export function tokenConfig(overrides: Partial<TokenConfig> = {}): TokenConfig {
  const id = overrides.id ?? "tok_1";
  return {
    id,
    projectId: "proj_1",
    name: `token-${id.replace("tok_", "")}`,
    tags: {},
    extraProjectIds: [],
    limits: [],
    ...overrides,
  };
}
