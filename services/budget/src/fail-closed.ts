import { CounterStoreUnavailableError } from "@gw/counters";
import { RpcError, status } from "@gw/rpc";
import type { BudgetDeps } from "./deps.js";

/**
 * The counter store failing means budgets cannot be checked: refuse (UNAVAILABLE, which ingress
 * answers with 503 budget_unavailable), fast, and say so: an error log and a `budget.unavailable`
 * event (throttled by the publisher). Never pass a call unchecked.
 */
export async function counterCall<T>(deps: BudgetDeps, operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (!(error instanceof CounterStoreUnavailableError)) throw error;
    deps.logger.error({ err: error, operation }, "budget counters unavailable: refusing (fail closed)");
    deps.events.publish({
      event: "budget.unavailable",
      severity: "critical",
      projectId: "",
      details: { operation, reason: error.message },
    });
    throw new RpcError(status.UNAVAILABLE, "budget counters unavailable");
  }
}
