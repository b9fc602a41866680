import type { EventPublisher } from "@gw/accounting";
import type { ConfigStore } from "@gw/config-store";
import type { CounterStore } from "@gw/counters";
import type { Logger } from "@gw/logger";

export interface BudgetDeps {
  configStore: ConfigStore;
  counters: CounterStore;
  /** `budget.*` events; create it with `BUDGET_THROTTLED_EVENTS`. */
  events: EventPublisher;
  logger: Logger;
  /** Injectable clock (tests move it across window boundaries). */
  now?: () => number;
  /** How long an unsettled reservation holds its worst case before it is given back. Default 10 min. */
  reservationTtlMs?: number;
}

export const DEFAULT_RESERVATION_TTL_MS = 10 * 60_000;

/**
 * A hold's record outlives its expiry by a day, so a call that ran past the reservation TTL still
 * counts its actual usage when it settles.
 */
export const HOLD_KEEP_AFTER_EXPIRY_MS = 24 * 3_600_000;

/** `budget.unavailable` repeats within a minute are dropped: an outage is one event, not thousands. */
export const BUDGET_THROTTLED_EVENTS = ["budget.unavailable"] as const;
