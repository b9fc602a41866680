import type { BudgetConfig, BudgetMetric, ConfigStore } from "@gw/config-store";
import { type CounterStore, CounterStoreUnavailableError, type ReserveEntry } from "@gw/counters";
import { usdToMicros } from "@gw/pricing";
import type { ReserveRequest, ReserveResponse, UsageAmounts } from "@gw/proto";
import { RpcError, status } from "@gw/rpc";
import { currentWindow } from "./windows.js";

/**
 * Reserve-then-settle. Reserve adds the call's worst case to every budget window counter of the
 * request's scopes in one atomic counter-store step (all or nothing); settle replaces the worst
 * case by the actual usage; release gives it back. The reservation (which keys got how much) is
 * kept under `reservation:<id>` so settle and release know what to correct.
 *
 * Scopes: the project's budgets. Token limits, model limits and spend groups join with the budgets
 * issue, as do expiring reservations (today an ingress that dies between reserve and settle leaves
 * its worst case counted until the window ends: over-counting, never over-admission).
 */
export const RESERVATION_TTL_MS = 15 * 60_000;
/** Window keys outlive their window a little so late settles still find them. */
const WINDOW_KEY_GRACE_MS = 3_600_000;

interface StoredReservation {
  entries: { key: string; metric: BudgetMetric; amount: number }[];
}

export interface BudgetDeps {
  configStore: ConfigStore;
  counters: CounterStore;
  now?: () => number;
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

function limitOf(budget: BudgetConfig): number {
  return budget.metric === "cost" ? usdToMicros(budget.limit) : Math.floor(budget.limit);
}

export async function reserve(deps: BudgetDeps, request: ReserveRequest): Promise<ReserveResponse> {
  const now = (deps.now ?? Date.now)();
  const project = await deps.configStore.projectById(request.projectId);
  if (!project) throw new RpcError(status.NOT_FOUND, `unknown project ${request.projectId}`);
  const budgets = project.budgets;
  const entries: (ReserveEntry & { metric: BudgetMetric })[] = budgets.map((budget) => {
    const window = currentWindow(budget.windowType, budget.windowSize, now);
    return {
      key: `budget:project:${project.id}:${budget.metric}:${budget.windowType}:${budget.windowSize}:${window.id}`,
      metric: budget.metric,
      amount: amountOf(budget.metric, request.worstCase),
      limit: limitOf(budget),
      ttlMs: window.endsAt - now + WINDOW_KEY_GRACE_MS,
    };
  });
  const expiresAtMs = now + RESERVATION_TTL_MS;
  const admitted: ReserveResponse = {
    admitted: true,
    reservationId: request.reservationId,
    blockedScope: "",
    blockedMetric: "",
    message: "",
    expiresAtMs,
  };
  if (entries.length === 0) return admitted;
  const result = await counterCall(() => deps.counters.reserve(entries));
  if (!result.ok) {
    const budget = budgets[result.failedIndex]!;
    return {
      ...admitted,
      admitted: false,
      blockedScope: `project:${project.slug}`,
      blockedMetric: budget.metric,
      message: `${budget.metric} budget (${budget.windowType} ${budget.windowSize}) of project ${project.slug} is exhausted`,
    };
  }
  const stored: StoredReservation = {
    entries: entries.map(({ key, metric, amount }) => ({ key, metric, amount })),
  };
  await counterCall(() =>
    deps.counters.setValue(reservationKey(request.reservationId), JSON.stringify(stored), RESERVATION_TTL_MS),
  );
  return admitted;
}

/** Replace the reserved worst case by `actual` (release = settle to zero). False when unknown or done. */
export async function settle(
  deps: BudgetDeps,
  reservationId: string,
  actual: UsageAmounts | undefined,
): Promise<boolean> {
  const key = reservationKey(reservationId);
  const raw = await counterCall(() => deps.counters.getValue(key));
  if (!raw) return false;
  await counterCall(() => deps.counters.delete([key]));
  const stored = JSON.parse(raw) as StoredReservation;
  const corrections = stored.entries
    .map((entry) => ({ key: entry.key, amount: amountOf(entry.metric, actual) - entry.amount }))
    .filter((entry) => entry.amount !== 0);
  if (corrections.length > 0) await counterCall(() => deps.counters.add(corrections));
  return true;
}

function reservationKey(id: string): string {
  return `reservation:${id}`;
}

/** The counter store failing means budgets cannot be checked: fail closed, fast, recognisably. */
async function counterCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof CounterStoreUnavailableError) {
      throw new RpcError(status.UNAVAILABLE, "budget counters unavailable");
    }
    throw error;
  }
}
