import { requestCost } from "../pricing-tiers.js";
import type { RoutingPolicy } from "../types.js";
import { candidateEntry, linearScores } from "./scoring.js";

/**
 * Prefer the model on which THIS request costs least in the worst case, at the prices that apply
 * this month (volume tiers included, so a model whose volume discount kicked in can overtake a
 * cheaper list price). Cheapest scores 1, most expensive 0, linear between. An unpriced model has
 * no cost to compare: it gets no score and ranks after every priced one rather than passing as free.
 */
export const cheapestPolicy: RoutingPolicy = {
  name: "cheapest",
  evaluate(candidates, context) {
    const costs = candidates.map(({ model }) => ({
      model,
      cost: requestCost(model, context.features, context.monthlyTokens),
    }));
    const priced = new Map<string, number>();
    for (const { model, cost } of costs) if (cost.micros !== null) priced.set(model.id, cost.micros);
    const scores = linearScores(priced, "lower");
    const trace = costs.map(({ model, cost }) => {
      const details = {
        costMicros: cost.micros,
        tier: cost.tier === null ? "base" : { fromTokens: cost.tier.fromTokens },
        monthlyTokens: cost.monthlyTokens,
        inputTokens: cost.inputTokens,
        outputTokens: cost.outputTokens,
      };
      if (cost.micros === null)
        return candidateEntry("cheapest", model.id, null, "unpriced: ranks after priced models", details);
      const prices = cost.tier === null ? "base prices" : `tier from ${cost.tier.fromTokens} tokens`;
      return candidateEntry(
        "cheapest",
        model.id,
        scores.get(model.id) ?? null,
        `worst case ${cost.micros} micro-USD at ${prices}`,
        details,
      );
    });
    return { scores, excluded: new Map(), trace };
  },
};
