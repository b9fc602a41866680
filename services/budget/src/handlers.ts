import type { BudgetServiceService } from "@gw/proto";
import type { AsyncHandlers } from "@gw/rpc";
import { createBudgetEvents } from "./budget-events.js";
import type { BudgetDeps } from "./deps.js";
import { groupUsage } from "./group-usage.js";
import { reserve, settle } from "./reservations.js";

/** The BudgetService implementation, served over gRPC (distributed) or called in-process (standalone). */
export function createBudgetHandlers(deps: BudgetDeps): AsyncHandlers<typeof BudgetServiceService> {
  const ctx = { deps, events: createBudgetEvents(deps) };
  return {
    reserve: (request) => reserve(ctx, request),
    settle: async (request) => ({ settled: await settle(ctx, request.reservationId, request.actual) }),
    release: async (request) => ({ released: await settle(ctx, request.reservationId, undefined) }),
    groupUsage: (request) => groupUsage(deps, request),
  };
}
