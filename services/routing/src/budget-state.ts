import { budgetCounter, monthlyVolumeCounter } from "@gw/budgets";
import type { ModelConfig } from "@gw/config-store";
import type { CounterStore, ReadEntry } from "@gw/counters";

export interface BudgetState {
  /** Models at or over one of their own limits: the `budget` filter excludes them. */
  exhausted: Set<string>;
  /** Tokens of the current month per model with pricing tiers: `cheapest` and the estimates price by tier. */
  monthlyTokens: Map<string, number>;
}

/**
 * What routing needs from the budget counters, in one read: each model's own limits (a model at its
 * limit is filtered out, so the request goes to the next candidate instead of a refusal) and the
 * monthly volume of models with pricing tiers. Models without either cost nothing to route.
 * The keys are the budget service's (libs/budgets), so both always read the same counters.
 */
export async function readBudgetState(
  counters: CounterStore,
  models: ModelConfig[],
  now: number,
): Promise<BudgetState> {
  const state: BudgetState = { exhausted: new Set(), monthlyTokens: new Map() };
  const reads: ReadEntry[] = [];
  const meaning: ({ modelId: string; limit: number } | { modelId: string; volume: true })[] = [];
  for (const model of models) {
    for (const budget of model.limits) {
      const counter = budgetCounter(
        { level: "model", scopeId: model.id, name: model.id, budget, enforced: true },
        now,
      );
      reads.push({ key: counter.key, ...(counter.sliding ? { sliding: counter.sliding } : {}) });
      meaning.push({ modelId: model.id, limit: counter.limit });
    }
    if (model.pricingTiers.length > 0) {
      reads.push({ key: monthlyVolumeCounter(model.id, now).key });
      meaning.push({ modelId: model.id, volume: true });
    }
  }
  if (reads.length === 0) return state;
  const values = await counters.read(reads, { nowMs: now });
  meaning.forEach((m, i) => {
    const value = values[i] ?? 0;
    if ("volume" in m) state.monthlyTokens.set(m.modelId, value);
    else if (value >= m.limit) state.exhausted.add(m.modelId);
  });
  return state;
}
