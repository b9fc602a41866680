import { amountOf, amountsByMetric, monthlyVolumeCounter, windowLabel } from "@gw/budgets";
import type { HoldEntry } from "@gw/counters";
import type { ReserveRequest, ReserveResponse, UsageAmounts } from "@gw/proto";
import type { BudgetEvents } from "./budget-events.js";
import { type BudgetDeps, DEFAULT_RESERVATION_TTL_MS, HOLD_KEEP_AFTER_EXPIRY_MS } from "./deps.js";
import { counterCall } from "./fail-closed.js";
import { requestScopes } from "./request-scopes.js";

/**
 * Reserve-then-settle (docs/BUDGETS.md). Reserve adds the call's worst case to the counter of every
 * budget of every scope in one atomic counter-store step (all or nothing) and keeps it as a hold;
 * settle replaces the worst case by the actual usage; release gives it back; a hold nobody settles
 * (the caller died) is given back by the expiry sweeper after the reservation TTL.
 */

export interface ReservationContext {
  deps: BudgetDeps;
  events: BudgetEvents;
}

export async function reserve(ctx: ReservationContext, request: ReserveRequest): Promise<ReserveResponse> {
  const { deps } = ctx;
  const now = (deps.now ?? Date.now)();
  const { project, model, scopes, counters } = await requestScopes(deps.configStore, request, now);
  const ttlMs = deps.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
  const answer: ReserveResponse = {
    admitted: true,
    reservationId: request.reservationId,
    blockedScope: "",
    blockedMetric: "",
    message: "",
    // 0 = nothing held (no budget applies): the caller need not settle.
    expiresAtMs: 0,
    blockedWindow: "",
    blockedLimit: 0,
  };
  const volume = model && model.pricingTiers.length > 0 ? monthlyVolumeCounter(model.id, now) : null;
  if (scopes.length === 0 && !volume) return answer;
  const entries: HoldEntry[] = scopes.map((scope, i) => {
    const counter = counters[i]!;
    return {
      key: counter.key,
      tag: scope.budget.metric,
      amount: amountOf(scope.budget.metric, request.worstCase),
      limit: scope.enforced ? counter.limit : null,
      ttlMs: counter.ttlMs,
      ...(counter.sliding ? { sliding: counter.sliding } : {}),
    };
  });
  // The model's monthly volume (its pricing tier) is held and settled like a budget without limit.
  // It comes last: `entries[i]` and `scopes[i]` stay aligned for refusals and events.
  if (volume)
    entries.push({
      key: volume.key,
      tag: "total_tokens",
      amount: amountOf("total_tokens", request.worstCase),
      limit: null,
      ttlMs: volume.ttlMs,
    });
  const result = await counterCall(deps, "reserve", () =>
    deps.counters.reserveHold(
      {
        id: request.reservationId,
        entries,
        expiresAtMs: now + ttlMs,
        keepMs: ttlMs + HOLD_KEEP_AFTER_EXPIRY_MS,
      },
      { nowMs: now },
    ),
  );
  if (!result.ok) {
    const scope = scopes[result.failedIndex]!;
    ctx.events.refused(project.id, scope, counters[result.failedIndex]!, result.values[result.failedIndex]!);
    const window = windowLabel(scope.budget);
    return {
      ...answer,
      admitted: false,
      blockedScope: `${scope.level}:${scope.name}`,
      blockedMetric: scope.budget.metric,
      blockedWindow: window,
      blockedLimit: scope.budget.limit,
      message: `${window} ${scope.budget.metric} budget of ${scope.level} ${scope.name} (limit ${scope.budget.limit}) is exhausted`,
    };
  }
  if (!result.replayed)
    ctx.events.admitted(request.reservationId, project.id, {
      scopes,
      counters,
      amounts: entries.map((entry) => entry.amount),
      values: result.values,
    });
  return { ...answer, expiresAtMs: now + ttlMs };
}

/** Replace the reserved worst case by `actual` (release: by nothing). False when unknown or done. */
export async function settle(
  ctx: ReservationContext,
  reservationId: string,
  actual: UsageAmounts | undefined,
): Promise<boolean> {
  const { deps } = ctx;
  const now = (deps.now ?? Date.now)();
  const result = await counterCall(deps, "settle", () =>
    deps.counters.settleHold(reservationId, amountsByMetric(actual), { nowMs: now }),
  );
  ctx.events.settled(reservationId, result.settled ? result.values : null);
  return result.settled;
}
