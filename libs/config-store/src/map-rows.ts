import type { Model } from "@gw/db";
import { toBudgets } from "./budget-rows.js";
import type { ModelConfig, PricingTier, ProjectRoutingConfig } from "./types.js";

function price(value: { toNumber(): number } | null): number | null {
  return value === null ? null : value.toNumber();
}

export function toModelConfig(row: Model): ModelConfig {
  return {
    id: row.id,
    provider: row.provider,
    upstreamModel: row.upstreamModel ?? row.id,
    apiKeyEncrypted: row.apiKeyEncrypted,
    inputPrice: price(row.inputPrice),
    outputPrice: price(row.outputPrice),
    cachePrice: price(row.cachePrice),
    contextWindow: row.contextWindow,
    maxOutputTokens: row.maxOutputTokens,
    capabilities: row.capabilities,
    enabled: row.enabled,
    baseUrl: row.baseUrl,
    pricingTiers: toPricingTiers(row.pricingTiers),
    createdAt: Math.floor(row.createdAt.getTime() / 1000),
    limits: toBudgets(row.limits),
  };
}

/** Tiers sorted by `fromTokens`; malformed entries are skipped (the management API validates writes). */
export function toPricingTiers(json: unknown): PricingTier[] {
  if (!Array.isArray(json)) return [];
  const tiers: PricingTier[] = [];
  for (const entry of json) {
    const t = entry as Record<string, unknown>;
    if (typeof t !== "object" || t === null) continue;
    const { fromTokens, inputPrice, outputPrice, cachePrice } = t;
    if (typeof fromTokens !== "number" || typeof inputPrice !== "number" || typeof outputPrice !== "number")
      continue;
    tiers.push({
      fromTokens,
      inputPrice,
      outputPrice,
      ...(typeof cachePrice === "number" ? { cachePrice } : {}),
    });
  }
  return tiers.sort((a, b) => a.fromTokens - b.fromTokens);
}

/** The project's `routing` JSON, with only well-typed fields kept. */
export function toRoutingConfig(json: unknown): ProjectRoutingConfig {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return {};
  const r = json as Record<string, unknown>;
  const config: ProjectRoutingConfig = {};
  const llm = r.llm as Record<string, unknown> | undefined;
  if (llm && typeof llm === "object" && typeof llm.modelId === "string") {
    config.llm = {
      modelId: llm.modelId,
      ...(Array.isArray(llm.fallbackModelIds)
        ? { fallbackModelIds: llm.fallbackModelIds.filter((id): id is string => typeof id === "string") }
        : {}),
      ...(typeof llm.prompt === "string" ? { prompt: llm.prompt } : {}),
      ...(typeof llm.timeoutMs === "number" ? { timeoutMs: llm.timeoutMs } : {}),
    };
  }
  if (typeof r.weights === "object" && r.weights !== null)
    config.weights = Object.fromEntries(
      Object.entries(r.weights).filter((entry): entry is [string, number] => typeof entry[1] === "number"),
    );
  if (typeof r.health === "object" && r.health !== null)
    config.health = Object.fromEntries(
      Object.entries(r.health).filter((entry): entry is [string, number] => typeof entry[1] === "number"),
    );
  if (typeof r.maxAttempts === "number" && Number.isInteger(r.maxAttempts) && r.maxAttempts >= 1)
    config.maxAttempts = r.maxAttempts;
  return config;
}
