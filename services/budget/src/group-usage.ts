import { budgetCounter, type ScopeBudget, toBudgetUnits } from "@gw/budgets";
import type { GroupUsageRequest, GroupUsageResponse } from "@gw/proto";
import type { BudgetDeps } from "./deps.js";
import { counterCall } from "./fail-closed.js";

/**
 * Current and remaining consumption of spend groups' limits (the management API's
 * `GET /api/spend-groups`). Every request counts on each group up its chain, so a group's counter
 * already aggregates its descendants' projects and tokens: one read of all counters, no walk.
 * `current` includes reservations in flight, as admission sees it.
 */
export async function groupUsage(deps: BudgetDeps, request: GroupUsageRequest): Promise<GroupUsageResponse> {
  const now = (deps.now ?? Date.now)();
  const wanted = new Set(request.groupIds);
  const groups = (await deps.configStore.spendGroups()).filter((g) => wanted.size === 0 || wanted.has(g.id));
  const scopes: ScopeBudget[] = groups.flatMap((group) =>
    group.limits.map((budget) => ({
      level: "group" as const,
      scopeId: group.id,
      name: group.name,
      budget,
      enforced: true,
    })),
  );
  const counters = scopes.map((scope) => budgetCounter(scope, now));
  const values = await counterCall(deps, "group usage", () =>
    deps.counters.read(
      counters.map((counter) => ({
        key: counter.key,
        ...(counter.sliding ? { sliding: counter.sliding } : {}),
      })),
      { nowMs: now },
    ),
  );
  let next = 0;
  return {
    groups: groups.map((group) => ({
      groupId: group.id,
      usage: group.limits.map((budget) => {
        const current = toBudgetUnits(budget.metric, values[next++] ?? 0);
        return {
          metric: budget.metric,
          windowType: budget.windowType,
          windowSize: budget.windowSize,
          limit: budget.limit,
          current,
          remaining: Math.max(budget.limit - current, 0),
        };
      }),
    })),
  };
}
