import type { BudgetServiceService } from "@gw/proto";
import type { AsyncHandlers } from "@gw/rpc";
import { type BudgetDeps, reserve, settle } from "./reservations.js";

/** The BudgetService implementation, served over gRPC (distributed) or called in-process (standalone). */
export function createBudgetHandlers(deps: BudgetDeps): AsyncHandlers<typeof BudgetServiceService> {
  return {
    reserve: (request) => reserve(deps, request),
    settle: async (request) => ({ settled: await settle(deps, request.reservationId, request.actual) }),
    release: async (request) => ({ released: await settle(deps, request.reservationId, undefined) }),
  };
}
