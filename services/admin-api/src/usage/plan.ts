import { ceilTo, floorTo, type TimelineUnit } from "./timeline.js";

/**
 * Where each part of [from, to) is read from: `raw` = usage_records, `hour` / `day` = the
 * usage_rollups of that granularity. Every segment is half-open, they do not overlap and together
 * cover the range exactly.
 */
export interface Segment {
  source: "raw" | "hour" | "day";
  from: Date;
  to: Date;
}

/**
 * Split [from, to) so the least data is read: raw records only for the partial hours at the
 * edges, hourly rollups for the partial days, daily rollups for the whole days in between. A
 * source is never coarser than the timeline bucket, or a bucket would get sums that belong to its
 * neighbours: a minute timeline reads only raw records, an hour timeline never daily rollups.
 */
export function planSegments(from: Date, to: Date, unit: TimelineUnit): Segment[] {
  const start = from.getTime();
  const end = to.getTime();
  if (end <= start) return [];
  if (unit === "minute") return [segment("raw", start, end)];
  const hourStart = ceilTo("hour", start);
  const hourEnd = floorTo("hour", end);
  if (hourStart >= hourEnd) return [segment("raw", start, end)];
  const middle = unit === "hour" ? [segment("hour", hourStart, hourEnd)] : hoursAndDays(hourStart, hourEnd);
  return [segment("raw", start, hourStart), ...middle, segment("raw", hourEnd, end)].filter(
    (part) => part.from < part.to,
  );
}

/** [start, end) on whole hours: hourly rollups at the partial-day edges, daily ones between. */
function hoursAndDays(start: number, end: number): Segment[] {
  const dayStart = ceilTo("day", start);
  const dayEnd = floorTo("day", end);
  if (dayStart >= dayEnd) return [segment("hour", start, end)];
  return [segment("hour", start, dayStart), segment("day", dayStart, dayEnd), segment("hour", dayEnd, end)];
}

function segment(source: Segment["source"], from: number, to: number): Segment {
  return { source, from: new Date(from), to: new Date(to) };
}
