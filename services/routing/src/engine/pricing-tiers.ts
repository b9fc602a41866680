import type { ModelConfig, PricingTier } from "@gw/config-store";
import { costMicros, type ModelPrices, worstCaseOutputTokens } from "@gw/pricing";
import type { RouteFeatures, RoutingContext } from "./types.js";

/** The prices that apply to a model now, and the tier they come from (null = the base prices). */
export interface AppliedPrices {
  prices: ModelPrices;
  tier: PricingTier | null;
}

/**
 * Volume tiers (DESIGN.md section 4): once a model's tokens in the current calendar month reach a
 * tier's `fromTokens`, that tier's prices apply. The tier with the greatest `fromTokens` not above
 * the monthly volume wins; the tiers need not be stored sorted. Below every tier, the base prices.
 */
export function pricesFor(model: ModelConfig, monthlyTokens: number): AppliedPrices {
  let tier: PricingTier | null = null;
  for (const candidate of model.pricingTiers) {
    if (candidate.fromTokens <= monthlyTokens && (tier === null || candidate.fromTokens > tier.fromTokens))
      tier = candidate;
  }
  if (tier === null)
    return {
      prices: { inputPrice: model.inputPrice, outputPrice: model.outputPrice, cachePrice: model.cachePrice },
      tier: null,
    };
  // A tier without its own cache price charges cached tokens at the tier's input price (the
  // `costMicros` default) rather than the base cache price, which could exceed the tier's input.
  return {
    prices: { inputPrice: tier.inputPrice, outputPrice: tier.outputPrice, cachePrice: tier.cachePrice },
    tier,
  };
}

export interface RequestCost {
  /** Worst-case cost of the request, micro-USD; null when the applicable prices are missing. */
  micros: number | null;
  tier: PricingTier | null;
  monthlyTokens: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Worst-case cost of this request on this model at the prices that apply this month: the counted
 * input plus the output bound that budget reservations use (`worstCaseOutputTokens`), so the
 * routing estimate and the reservation agree.
 */
export function requestCost(
  model: ModelConfig,
  features: Pick<RouteFeatures, "estimatedInputTokens" | "maxTokens">,
  monthlyTokens: Map<string, number>,
): RequestCost {
  const volume = monthlyTokens.get(model.id) ?? 0;
  const { prices, tier } = pricesFor(model, volume);
  const inputTokens = features.estimatedInputTokens;
  const outputTokens = worstCaseOutputTokens(features.maxTokens, model);
  return {
    micros: costMicros(prices, { inputTokens, outputTokens }),
    tier,
    monthlyTokens: volume,
    inputTokens,
    outputTokens,
  };
}

interface CostMemo {
  features: RoutingContext["features"];
  monthlyTokens: RoutingContext["monthlyTokens"];
  byModel: WeakMap<ModelConfig, RequestCost>;
}

/** Per routing context: the costs already computed, so the engine and `cheapest` share them. */
const costMemos = new WeakMap<RoutingContext, CostMemo>();

/**
 * `requestCost` for a model in one routing decision, computed once per decision: the engine's
 * cost estimate and the `cheapest` policy read the same result. Keyed by the context object (and
 * its `features` and `monthlyTokens`, so a context given other ones recomputes); a context is not
 * changed during a decision. The result is shared: treat it as read-only.
 */
export function contextRequestCost(model: ModelConfig, context: RoutingContext): RequestCost {
  let memo = costMemos.get(context);
  if (
    memo === undefined ||
    memo.features !== context.features ||
    memo.monthlyTokens !== context.monthlyTokens
  ) {
    memo = { features: context.features, monthlyTokens: context.monthlyTokens, byModel: new WeakMap() };
    costMemos.set(context, memo);
  }
  let cost = memo.byModel.get(model);
  if (cost === undefined) {
    cost = requestCost(model, context.features, context.monthlyTokens);
    memo.byModel.set(model, cost);
  }
  return cost;
}
