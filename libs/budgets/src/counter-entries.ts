import type { BudgetConfig, BudgetMetric } from "@gw/config-store";
import type { SlidingWindow } from "@gw/counters";
import { usdToMicros } from "@gw/pricing";
import type { ScopeBudget } from "./scopes.js";
import { periodWindow, slidingWindowOf } from "./windows.js";

/**
 * Where a scope's budget is counted: the counter key, its window layout and TTL, and its limit in
 * counter units (integers; money in micro-USD). Budget service and routing (models' own limits)
 * both derive keys here, so they always read the same counters.
 */

/** Usage in counter units, as the budget RPCs carry it. */
export interface UsageAmounts {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

export interface BudgetCounter {
  key: string;
  sliding?: SlidingWindow;
  /** Key TTL, ms: a period key outlives its window by an hour so late settles still find it. */
  ttlMs: number;
  /** Limit in counter units. */
  limit: number;
  /** Unix ms when a period window starts and ends; null for rolling windows. */
  windowStartsAt: number | null;
  windowEndsAt: number | null;
}

const PERIOD_KEY_GRACE_MS = 3_600_000;

export function budgetCounter(scope: ScopeBudget, now: number): BudgetCounter {
  const { budget } = scope;
  const base = `budget:${scope.level}:${scope.scopeId}:${budget.metric}:${budget.windowType}:${budget.windowSize}`;
  const limit = limitUnits(budget);
  if (budget.windowType === "rolling") {
    const sliding = slidingWindowOf(budget.windowSize);
    return {
      key: base,
      sliding,
      ttlMs: sliding.bucketMs * (sliding.buckets + 1),
      limit,
      windowStartsAt: null,
      windowEndsAt: null,
    };
  }
  const window = periodWindow(budget.windowSize, now);
  return {
    key: `${base}:${window.id}`,
    ttlMs: window.endsAt - now + PERIOD_KEY_GRACE_MS,
    limit,
    windowStartsAt: window.startsAt,
    windowEndsAt: window.endsAt,
  };
}

/** The limit in counter units: micro-USD for cost (rounded down: a limit is never raised). */
export function limitUnits(budget: BudgetConfig): number {
  return budget.metric === "cost" ? usdToMicros(budget.limit) : Math.floor(budget.limit);
}

/** A counter value back in the budget's unit (USD for cost), for messages, events and the API. */
export function toBudgetUnits(metric: BudgetMetric, value: number): number {
  return metric === "cost" ? value / 1_000_000 : value;
}

export function amountOf(metric: BudgetMetric, usage: UsageAmounts | undefined): number {
  const u = usage ?? { calls: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 };
  switch (metric) {
    case "calls":
      return u.calls;
    case "input_tokens":
      return u.inputTokens;
    case "output_tokens":
      return u.outputTokens;
    case "total_tokens":
      return u.inputTokens + u.outputTokens;
    case "cost":
      return u.costMicros;
    default:
      throw new Error(`unknown budget metric ${metric satisfies never}`);
  }
}

/** Every metric's amount, keyed by metric: the `actual` of a hold settle. */
export function amountsByMetric(usage: UsageAmounts | undefined): Record<BudgetMetric, number> {
  return {
    calls: amountOf("calls", usage),
    input_tokens: amountOf("input_tokens", usage),
    output_tokens: amountOf("output_tokens", usage),
    total_tokens: amountOf("total_tokens", usage),
    cost: amountOf("cost", usage),
  };
}

/** How the window reads in messages and events: `monthly`, `rolling hour`. */
export function windowLabel(budget: BudgetConfig): string {
  return budget.windowType === "rolling" ? `rolling ${budget.windowSize}` : budget.windowSize;
}
