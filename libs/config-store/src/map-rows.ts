import type { Model } from "@gw/db";
import type { BudgetConfig, BudgetMetric, ModelConfig } from "./types.js";

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
