import type { PrismaClient } from "@gw/db";
import { matchesNothing, resolveFilters, type UsageFilters } from "./filters.js";
import { type MergedReport, mergePartials } from "./merge.js";
import { planSegments, type Segment } from "./plan.js";
import type { UsageRequest } from "./query.js";
import { recordPage } from "./records.js";
import { querySource, type SourceAggregate } from "./segment-queries.js";
import { bucketStarts, type TimelineUnit, timelineUnit } from "./timeline.js";

/**
 * Summary, byModel and timeline of [from, to) under the filters, from the fewest rows: the plan's
 * segments are grouped by source (one query pair per source, run together) and merged in JS.
 */
export async function aggregateUsage(
  prisma: PrismaClient,
  filters: UsageFilters,
  from: Date,
  to: Date,
  unit: TimelineUnit = timelineUnit(from, to),
): Promise<MergedReport> {
  const bySource = new Map<Segment["source"], Segment[]>();
  if (!matchesNothing(filters))
    for (const segment of planSegments(from, to, unit))
      bySource.set(segment.source, [...(bySource.get(segment.source) ?? []), segment]);
  const partials: SourceAggregate[] = await Promise.all(
    [...bySource].map(([source, segments]) => querySource(prisma, source, segments, unit, filters)),
  );
  return mergePartials(partials, bucketStarts(unit, from, to));
}

/** `GET /api/usage`: the report and one page of records. */
export async function usageReport(prisma: PrismaClient, query: UsageRequest) {
  const filters = await resolveFilters(prisma, query);
  const range = { from: query.from, to: query.to };
  const unit = timelineUnit(query.from, query.to);
  const [report, records] = await Promise.all([
    aggregateUsage(prisma, filters, query.from, query.to, unit),
    matchesNothing(filters) ? [] : recordPage(prisma, filters, range, query),
  ]);
  return {
    // Extra: the range actually reported (after defaults) and the timeline's bucket size.
    range: { from: query.from.toISOString(), to: query.to.toISOString(), bucket: unit },
    ...report,
    records,
    pagination: { limit: query.limit, offset: query.offset, total: report.summary.totalCalls },
  };
}
