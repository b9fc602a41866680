import type { BudgetDeps } from "./deps.js";

export interface ExpirySweeper {
  /** One pass now: gives back every expired hold; returns how many. */
  sweep(): Promise<number>;
  stop(): void;
}

const BATCH = 500;

/**
 * Gives back the worst case of reservations nobody settled (an ingress that crashed mid-call),
 * once their TTL has passed. Every replica sweeps; the counter store expires each hold at most once
 * and never after its settle, so replicas cannot give anything back twice.
 */
export function startExpirySweeper(deps: BudgetDeps, intervalMs: number): ExpirySweeper {
  let running: Promise<number> | null = null;
  const sweep = async (): Promise<number> => {
    let total = 0;
    for (;;) {
      const expired = await deps.counters.expireHolds((deps.now ?? Date.now)(), BATCH);
      total += expired.length;
      if (expired.length < BATCH) break;
    }
    if (total > 0)
      deps.logger.warn(
        { expired: total },
        "gave back the worst case of unsettled reservations past their TTL",
      );
    return total;
  };
  const tick = () => {
    if (running) return;
    running = sweep()
      .catch((error: unknown) => {
        deps.logger.warn({ err: error }, "reservation expiry sweep failed; retrying next interval");
        return 0;
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  return { sweep, stop: () => clearInterval(timer) };
}
