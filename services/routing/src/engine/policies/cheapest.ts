import { contextRequestCost } from "../pricing-tiers.js";
import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, linearScores, scoredReason, scoresEntry } from "./scoring.js";

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
      cost: contextRequestCost(model, context),
    }));
    const priced = new Map<string, number>();
    for (const { model, cost } of costs) if (cost.micros !== null) priced.set(model.id, cost.micros);
    const scores = linearScores(priced, "lower");
    const traced: CandidateScore[] = costs.map(({ model, cost }) => {
      let score: number | null = null;
      let reason = "unpriced: ranks after priced models";
      if (cost.micros !== null) {
        score = scores.get(model.id) ?? null;
        const prices = cost.tier === null ? "base prices" : `tier from ${cost.tier.fromTokens} tokens`;
        reason = `worst case ${cost.micros} micro-USD at ${prices}`;
      }
      return {
        modelId: model.id,
        score,
        reason,
        costMicros: cost.micros,
        tier: cost.tier === null ? "base" : { fromTokens: cost.tier.fromTokens },
        monthlyTokens: cost.monthlyTokens,
        outputTokens: cost.outputTokens,
      };
    });
    // The input is the same for every candidate: traced once.
    const summary = { inputTokens: context.features.estimatedInputTokens };
    return {
      scores,
      excluded: new Map(),
      trace: [scoresEntry("cheapest", scoredReason(traced), traced, summary)],
    };
  },
};
