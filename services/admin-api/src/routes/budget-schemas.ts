import { BUDGET_METRICS, PERIOD_WINDOWS, ROLLING_WINDOWS } from "@gw/config-store";
import { z } from "zod";

/** `warnAt` of a budget or limit: the percent at which `budget.threshold` fires (default 80). */
export const warnAt = z.number().gt(0, "must be > 0").max(100, "must be at most 100").optional();

/**
 * A budget in the stored shape of docs/BUDGETS.md (project budgets and models' own limits):
 * `windowSize` must belong to `windowType`; `onExhausted` is always `block`.
 */
export const budgetEntry = z
  .strictObject({
    metric: z.enum(BUDGET_METRICS),
    limit: z.number().min(0, "must be >= 0"),
    windowType: z.enum(["period", "rolling"]),
    windowSize: z.string(),
    onExhausted: z.literal("block").default("block"),
    warnAt,
  })
  .superRefine((entry, context) => {
    const sizes: readonly string[] = entry.windowType === "period" ? PERIOD_WINDOWS : ROLLING_WINDOWS;
    if (!sizes.includes(entry.windowSize))
      context.addIssue({
        code: "custom",
        path: ["windowSize"],
        message: `must be one of ${sizes.join(", ")} for a ${entry.windowType} window`,
      });
  });
