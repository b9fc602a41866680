import type { Model } from "@gw/db";
import type { BudgetConfig, BudgetMetric, ModelConfig, PricingTier, ProjectRoutingConfig } from "./types.js";

const METRICS = new Set<BudgetMetric>(["cost", "calls", "input_tokens", "output_tokens", "total_tokens"]);

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
  };
}

/**
 * Budgets are stored as JSON on the project; entries that are not well-formed are skipped here
 * (the management API validates them on write, so this only guards against hand-edited rows).
 */
export function toBudgets(json: unknown): BudgetConfig[] {
  if (!Array.isArray(json)) return [];
  const budgets: BudgetConfig[] = [];
  for (const entry of json as Record<string, unknown>[]) {
    const metric = entry?.metric as BudgetMetric;
    const limit = Number(entry?.limit);
    if (!METRICS.has(metric) || !Number.isFinite(limit) || limit < 0) continue;
    budgets.push({
      metric,
      limit,
      windowType: entry.windowType === "rolling" ? "rolling" : "period",
      windowSize: typeof entry.windowSize === "string" ? entry.windowSize : "monthly",
      onExhausted: "block",
      warnAt: typeof entry.warnAt === "number" ? entry.warnAt : 80,
    });
  }
  return budgets;
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
