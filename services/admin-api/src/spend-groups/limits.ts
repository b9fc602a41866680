import { BUDGET_METRICS, PERIOD_WINDOWS, ROLLING_WINDOWS } from "@gw/config-store";
import { z } from "zod";

/**
 * A spend-group limit as stored in `spend_groups.limits` and read by the config store
 * (`libs/config-store/src/budget-rows.ts`, `toSpendGroup`): `{ metric, windowType, period, value,
 * warnAt? }`, `value` in the metric's unit (USD for cost). The config store silently skips entries
 * it cannot read, so every write is checked here, strictly.
 */
export interface SpendGroupLimit {
  metric: (typeof BUDGET_METRICS)[number];
  windowType: "period" | "rolling";
  period: string;
  value: number;
  warnAt?: number;
}

const limit = z
  .strictObject({
    metric: z.enum(BUDGET_METRICS),
    windowType: z.enum(["period", "rolling"]),
    period: z.string(),
    value: z.number().min(0, "must be 0 or more"),
    warnAt: z.number().gt(0, "must be above 0").max(100, "must be at most 100").optional(),
  })
  .superRefine((entry, context) => {
    const allowed: readonly string[] = entry.windowType === "period" ? PERIOD_WINDOWS : ROLLING_WINDOWS;
    if (!allowed.includes(entry.period))
      context.addIssue({
        code: "custom",
        path: ["period"],
        message: `must be one of ${allowed.join(", ")} for windowType ${entry.windowType}`,
      });
  });

/**
 * A group's limits: at most one per metric and window. Two would share one counter (docs/BUDGETS.md)
 * and make "the parent's matching limit" ambiguous, so a duplicate is refused rather than merged.
 */
export const limitList = z
  .array(limit)
  .max(50)
  .superRefine((limits, context) => {
    const seen = new Map<string, number>();
    limits.forEach((entry, index) => {
      const key = limitKey(entry);
      const first = seen.get(key);
      if (first !== undefined)
        context.addIssue({
          code: "custom",
          path: [index],
          message: `repeats limits[${first}] (same metric, windowType and period)`,
        });
      else seen.set(key, index);
    });
  });

/** Limits "match" when metric, window type and period are the same (SPEC: the parent's matching limit). */
export function limitKey(entry: Pick<SpendGroupLimit, "metric" | "windowType" | "period">): string {
  return `${entry.metric}|${entry.windowType}|${entry.period}`;
}

/** `cost monthly` or `calls rolling hour`, for messages. */
export function describeLimit(entry: SpendGroupLimit): string {
  const window = entry.windowType === "rolling" ? `rolling ${entry.period}` : entry.period;
  return `${entry.metric} ${window} limit`;
}

/** Stored limits, read back leniently: rows written before validation existed may hold anything. */
export function storedLimits(json: unknown): SpendGroupLimit[] {
  if (!Array.isArray(json)) return [];
  return json.filter(
    (entry): entry is SpendGroupLimit =>
      typeof entry === "object" &&
      entry !== null &&
      typeof entry.metric === "string" &&
      typeof entry.windowType === "string" &&
      typeof entry.period === "string" &&
      typeof entry.value === "number",
  );
}
