import { type BudgetCounter, budgetCounter, type ScopeBudget, toBudgetUnits, windowLabel } from "@gw/budgets";
import type { BudgetDeps } from "./deps.js";
import { counterCall } from "./fail-closed.js";

/**
 * `budget.threshold`, `budget.exhausted` and `budget.reset` (docs/EVENTS.md), each at most once per
 * budget and window across every replica: an event is published only by the replica that claims
 * its flag (a counter reserved from 0 to 1 with limit 1, expiring with the window).
 *
 * - exhausted: a call is refused by the budget, or a settle brings it to its limit;
 * - threshold: a settle brings it to `warnAt` percent of its limit (settled usage, not a worst case
 *   still in flight). Only reservations that came near a limit are watched, so the common case
 *   costs nothing; a settle that reaches another replica than its reserve is not watched (the next
 *   call near the limit fires the event instead);
 * - reset: the first admitted call of a period window after the previous window was exhausted.
 *   Rolling windows slide instead of resetting: they have no reset event.
 *
 * Events are advice: their failures are logged and never fail the call.
 */

interface Watched {
  projectId: string;
  scopes: ScopeBudget[];
  counters: BudgetCounter[];
}

type Kind = "threshold" | "exhausted" | "reset";

const SEVERITY = { threshold: "warning", exhausted: "critical", reset: "info" } as const;
/** Bound on reservations watched at once; beyond it (settles lost in bulk) the list starts over. */
const MAX_WATCHED = 100_000;

export interface BudgetEvents {
  refused(projectId: string, scope: ScopeBudget, counter: BudgetCounter, current: number): void;
  admitted(
    reservationId: string,
    projectId: string,
    reserved: { scopes: ScopeBudget[]; counters: BudgetCounter[]; amounts: number[]; values: number[] },
  ): void;
  settled(reservationId: string, values: number[] | null): void;
}

export function createBudgetEvents(deps: BudgetDeps): BudgetEvents {
  const watched = new Map<string, Watched>();

  const fire = (kind: Kind, projectId: string, scope: ScopeBudget, counter: BudgetCounter, current: number) =>
    claim(kind, counter)
      .then((claimed) => {
        if (!claimed) return;
        const { budget } = scope;
        deps.events.publish({
          event: `budget.${kind}`,
          severity: SEVERITY[kind],
          projectId,
          details: {
            level: scope.level,
            name: scope.name,
            scopeId: scope.scopeId,
            metric: budget.metric,
            window: windowLabel(budget),
            limit: budget.limit,
            current: toBudgetUnits(budget.metric, current),
            ...(kind === "threshold" ? { warnAt: budget.warnAt } : {}),
          },
        });
      })
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, event: `budget.${kind}` }, "budget event failed"),
      );

  /** The flag lives as long as the window (period: a window more, for the reset check). */
  async function claim(kind: Kind, counter: BudgetCounter): Promise<boolean> {
    const ttlMs =
      counter.windowEndsAt === null
        ? counter.ttlMs
        : counter.ttlMs + 2 * (counter.windowEndsAt - (counter.windowStartsAt ?? counter.windowEndsAt));
    const result = await counterCall(deps, "budget event", () =>
      deps.counters.reserve([{ key: flagKey(kind, counter.key), amount: 1, limit: 1, ttlMs }]),
    );
    return result.ok;
  }

  /** First call of a period window: was the previous window exhausted? Then this window is a reset. */
  async function checkReset(projectId: string, scope: ScopeBudget, counter: BudgetCounter, value: number) {
    if (counter.windowStartsAt === null) return;
    const previous = budgetCounter(scope, counter.windowStartsAt - 1);
    const [wasExhausted] = await counterCall(deps, "budget event", () =>
      deps.counters.get([flagKey("exhausted", previous.key)]),
    );
    if (wasExhausted) fire("reset", projectId, scope, counter, value);
  }

  return {
    refused(projectId, scope, counter, current) {
      fire("exhausted", projectId, scope, counter, current);
    },

    admitted(reservationId, projectId, { scopes, counters, amounts, values }) {
      let near = false;
      for (let i = 0; i < scopes.length; i++) {
        const scope = scopes[i]!;
        const counter = counters[i]!;
        // The window's counter went from 0 to this call's amount: its first call.
        if (counter.windowStartsAt !== null && amounts[i]! > 0 && values[i] === amounts[i])
          checkReset(projectId, scope, counter, values[i]!).catch((error: unknown) =>
            deps.logger.warn({ err: error }, "budget reset check failed"),
          );
        if (values[i]! >= warnLevel(scope, counter)) near = true;
      }
      if (!near) return;
      if (watched.size >= MAX_WATCHED) watched.clear();
      watched.set(reservationId, { projectId, scopes, counters });
    },

    settled(reservationId, values) {
      const entry = watched.get(reservationId);
      if (!entry) return;
      watched.delete(reservationId);
      if (!values) return;
      entry.scopes.forEach((scope, i) => {
        const counter = entry.counters[i]!;
        const value = values[i] ?? 0;
        if (value >= counter.limit) fire("exhausted", entry.projectId, scope, counter, value);
        else if (value >= warnLevel(scope, counter))
          fire("threshold", entry.projectId, scope, counter, value);
      });
    },
  };
}

/** `warnAt` percent of the limit, in counter units, rounded up: 80% of 50 calls is the 40th call. */
function warnLevel(scope: ScopeBudget, counter: BudgetCounter): number {
  return Math.ceil((counter.limit * scope.budget.warnAt) / 100);
}

function flagKey(kind: Kind, counterKey: string): string {
  return `budget-event:${kind}:${counterKey}`;
}
