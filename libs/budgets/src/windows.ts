import type { PeriodWindow, RollingWindow } from "@gw/config-store";
import type { SlidingWindow } from "@gw/counters";

/**
 * Budget windows (docs/BUDGETS.md).
 *
 * `period` windows are UTC calendar windows (weekly starts Monday 00:00 UTC). A window's counter
 * key carries its start, so a new window starts from zero and the old key expires on its own.
 *
 * `rolling` windows slide: usage counts for a fixed length after it was reserved. They are kept as
 * buckets of 1/60 of the length (1/10 for `second`), and one bucket more than the length is summed,
 * so usage counts for at least the full length and at most one bucket longer: within any interval
 * of the window's length, admitted usage never exceeds the limit; freed capacity comes back up to
 * one bucket late (1 s for `minute`, 1 min for `hour`, 24 min for `day`, 12 h for `month`).
 */

export interface PeriodSpan {
  /** Stable id of the window (its start, ISO 8601), part of the counter key. */
  id: string;
  startsAt: number;
  endsAt: number;
}

/** Length of each rolling window, ms (`month` is 30 days). */
export const ROLLING_LENGTH_MS: Record<RollingWindow, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

/** The bucket layout of a rolling window: `length / parts` per bucket, `parts + 1` buckets summed. */
export function slidingWindowOf(size: RollingWindow): SlidingWindow {
  const parts = size === "second" ? 10 : 60;
  return { bucketMs: ROLLING_LENGTH_MS[size] / parts, buckets: parts + 1 };
}

export function periodWindow(size: PeriodWindow, now: number): PeriodSpan {
  const date = new Date(now);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const d = date.getUTCDate();
  const h = date.getUTCHours();
  switch (size) {
    case "hourly":
      return span(Date.UTC(y, m, d, h), Date.UTC(y, m, d, h + 1));
    case "daily":
      return span(Date.UTC(y, m, d), Date.UTC(y, m, d + 1));
    case "weekly": {
      const sinceMonday = (date.getUTCDay() + 6) % 7;
      return span(Date.UTC(y, m, d - sinceMonday), Date.UTC(y, m, d - sinceMonday + 7));
    }
    case "monthly":
      return span(Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1));
    case "yearly":
      return span(Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1));
    default:
      throw new Error(`unknown period window ${size satisfies never}`);
  }
}

/** The window before the one holding `now` (for `budget.reset`: was the last one exhausted?). */
export function previousPeriodWindow(size: PeriodWindow, now: number): PeriodSpan {
  return periodWindow(size, periodWindow(size, now).startsAt - 1);
}

function span(startsAt: number, endsAt: number): PeriodSpan {
  return { id: new Date(startsAt).toISOString(), startsAt, endsAt };
}
