/**
 * The timeline's bucket size, chosen from the length of the range so a chart has between a few
 * dozen and about a hundred points: up to 2 hours by minute, up to 2 days by hour, up to 92 days
 * (a quarter) by day, longer by week. Buckets start on UTC boundaries (weeks on Monday, as
 * PostgreSQL's `date_trunc('week')`), so the first bucket may start before `from`; it still counts
 * only records at or after `from`.
 */
export type TimelineUnit = "minute" | "hour" | "day" | "week";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

export const UNIT_MS: Record<TimelineUnit, number> = { minute: MINUTE, hour: HOUR, day: DAY, week: WEEK };

export function timelineUnit(from: Date, to: Date): TimelineUnit {
  const span = to.getTime() - from.getTime();
  if (span <= 2 * HOUR) return "minute";
  if (span <= 2 * DAY) return "hour";
  if (span <= 92 * DAY) return "day";
  return "week";
}

/** The start of the UTC bucket of `unit` holding `at` (1970-01-01 was a Thursday: weeks shift by 3 days). */
export function floorTo(unit: TimelineUnit, at: number): number {
  if (unit !== "week") return Math.floor(at / UNIT_MS[unit]) * UNIT_MS[unit];
  const monday = 4 * DAY; // 1970-01-05, the first Monday
  return Math.floor((at - monday) / WEEK) * WEEK + monday;
}

export function ceilTo(unit: TimelineUnit, at: number): number {
  const floor = floorTo(unit, at);
  return floor === at ? at : floor + UNIT_MS[unit];
}

/** Every bucket start of the timeline of [from, to): none for an empty range. */
export function bucketStarts(unit: TimelineUnit, from: Date, to: Date): number[] {
  const starts: number[] = [];
  if (to <= from) return starts;
  for (let at = floorTo(unit, from.getTime()); at < to.getTime(); at += UNIT_MS[unit]) starts.push(at);
  return starts;
}
