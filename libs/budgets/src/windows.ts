/**
 * Budget windows. `period` windows are UTC calendar windows (weekly starts Monday 00:00 UTC).
 * A window's counter key carries the window start, so a new window starts from zero and the old
 * key expires on its own.
 *
 * `rolling` windows are, for now, fixed windows of the rolling size aligned to the Unix epoch: a
 * stopgap that never lets more through than the limit per aligned window. Exact sliding windows
 * come with the budgets issue.
 */
export interface Window {
  /** Stable id of the current window, part of the counter key. */
  id: string;
  /** Unix ms when the window ends. */
  endsAt: number;
}

const ROLLING_MS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

export function currentWindow(windowType: string, windowSize: string, now: number): Window {
  if (windowType === "rolling") {
    const size = ROLLING_MS[windowSize] ?? ROLLING_MS.day!;
    const start = Math.floor(now / size) * size;
    return { id: `r${windowSize}:${start}`, endsAt: start + size };
  }
  const date = new Date(now);
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth();
  const d = date.getUTCDate();
  const h = date.getUTCHours();
  switch (windowSize) {
    case "hourly":
      return period(Date.UTC(y, m, d, h), Date.UTC(y, m, d, h + 1));
    case "daily":
      return period(Date.UTC(y, m, d), Date.UTC(y, m, d + 1));
    case "weekly": {
      const sinceMonday = (date.getUTCDay() + 6) % 7;
      return period(Date.UTC(y, m, d - sinceMonday), Date.UTC(y, m, d - sinceMonday + 7));
    }
    case "yearly":
      return period(Date.UTC(y, 0, 1), Date.UTC(y + 1, 0, 1));
    default:
      return period(Date.UTC(y, m, 1), Date.UTC(y, m + 1, 1));
  }
}

function period(start: number, end: number): Window {
  return { id: `p${new Date(start).toISOString()}`, endsAt: end };
}
