import type { RoutingPolicy } from "../types.js";
import { candidateEntry, policyEntry, positionScores } from "./scoring.js";

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
    const total = remaining.reduce((sum, item) => sum + item.weight, 0);
    let index: number;
    if (total > 0) {
      const target = draw * total;
      let cumulative = 0;
      // Float sums can stop just short of `total`: default to the last positive weight.
      index = remaining.findLastIndex((item) => item.weight > 0);
      for (let i = 0; i < remaining.length; i++) {
        cumulative += remaining[i]!.weight;
        if (target < cumulative) {
          index = i;
          break;
        }
      }
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
    const weights = Object.fromEntries(items.map((item) => [item.id, item.weight]));
    const trace = [
      policyEntry("random", "scored", "weighted draw without replacement", { weights, draws, order }),
      ...order.map((id, index) =>
        candidateEntry("random", id, scores.get(id) ?? null, `drawn at position ${index + 1}`, {
          weight: weights[id],
          position: index + 1,
        }),
      ),
    ];
    return { scores, excluded: new Map(), trace };
  },
};
