import type { RoutingPolicy } from "../types.js";
import { type CandidateScore, positionScores, scoresEntry } from "./scoring.js";

/** A model without a configured weight. */
export const DEFAULT_WEIGHT = 1;

export interface WeightedItem {
  id: string;
  weight: number;
}

/**
 * Weighted sampling without replacement: each pick takes one of the remaining items with
 * probability weight / (sum of remaining weights), so the first model follows the configured
 * traffic split and the fallbacks are drawn the same way among the rest. Zero-weight items are
 * picked only once no positive weight remains (then uniformly): "never first unless alone".
 * Returns the order and the uniform draws used, for the trace.
 */
export function weightedOrder(
  items: readonly WeightedItem[],
  random: () => number,
): { order: string[]; draws: number[] } {
  const remaining = [...items];
  const order: string[] = [];
  const draws: number[] = [];
  while (remaining.length > 1) {
    // Guard against an injected source outside [0, 1): the index below must stay in range.
    const draw = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
    draws.push(draw);
    let total = 0;
    for (let i = 0; i < remaining.length; i++) total += remaining[i]!.weight;
    let index: number;
    if (total > 0) {
      const target = draw * total;
      let cumulative = 0;
      index = -1;
      for (let i = 0; i < remaining.length; i++) {
        cumulative += remaining[i]!.weight;
        if (target < cumulative) {
          index = i;
          break;
        }
      }
      // Float sums can stop just short of `total`: default to the last positive weight.
      if (index === -1) index = remaining.findLastIndex((item) => item.weight > 0);
    } else {
      index = Math.floor(draw * remaining.length);
    }
    order.push(remaining[index]!.id);
    remaining.splice(index, 1);
  }
  if (remaining[0]) order.push(remaining[0].id);
  return { order, draws };
}

/** A usable weight: a finite number >= 0; anything else falls back to the default. */
function weightOf(weights: Record<string, number> | undefined, modelId: string): number {
  const weight = weights?.[modelId];
  return typeof weight === "number" && Number.isFinite(weight) && weight >= 0 ? weight : DEFAULT_WEIGHT;
}

/**
 * Spread traffic across models by weight (`project.routing.weights`, default 1 each): a model
 * with weight 3 is first three times as often as one with weight 1; weight 0 keeps a model as a
 * fallback only. Scores follow the drawn order (first 1, last 0).
 */
export const randomPolicy: RoutingPolicy = {
  name: "random",
  evaluate(candidates, context) {
    const items = candidates.map(({ model }) => ({
      id: model.id,
      weight: weightOf(context.project.routing.weights, model.id),
    }));
    const { order, draws } = weightedOrder(items, context.random);
    const scores = positionScores(order);
    const weights = new Map(items.map((item) => [item.id, item.weight]));
    // In the drawn order (first = tried first), each with its weight: the order and the weights
    // are read from the candidates, the draws that made the order are the summary.
    const traced: CandidateScore[] = order.map((id, index) => ({
      modelId: id,
      score: scores.get(id) ?? null,
      reason: `drawn at position ${index + 1}`,
      weight: weights.get(id),
      position: index + 1,
    }));
    const trace = [scoresEntry("random", "weighted draw without replacement", traced, { draws })];
    return { scores, excluded: new Map(), trace };
  },
};
