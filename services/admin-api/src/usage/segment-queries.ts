import { Prisma, type PrismaClient } from "@gw/db";
import type { LatencyHistogram } from "@gw/metrics";
import { filterSql, type UsageFilters } from "./filters.js";
import type { Segment } from "./plan.js";
import type { TimelineUnit } from "./timeline.js";

/** Sums of one (timeline bucket, model, call type, outcome) cell of one source. */
export interface CellSums {
  bucket: number;
  modelId: string;
  callType: string;
  outcome: string;
  calls: number;
  unpricedCalls: number;
  costMicros: number;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  totalTokens: number;
  durationMsSum: number;
}

/** What one source contributes: its cells and its latency histogram per model ("" = no model). */
export interface SourceAggregate {
  cells: CellSums[];
  latency: Map<string, LatencyHistogram>;
}

type Row = Record<string, bigint | number | string | null>;

/**
 * Timestamps go in as UTC ISO text cast to `timestamp` (the columns have no zone, and PostgreSQL
 * ignores a zone in such a literal), so the answer never depends on the session's TimeZone.
 */
function utc(date: Date): Prisma.Sql {
  return Prisma.sql`${date.toISOString()}::timestamp`;
}

function inRanges(column: Prisma.Sql, segments: Segment[]): Prisma.Sql {
  return Prisma.sql`(${Prisma.join(
    segments.map((s) => Prisma.sql`(${column} >= ${utc(s.from)} AND ${column} < ${utc(s.to)})`),
    " OR ",
  )})`;
}

/**
 * Aggregate the segments of one source (raw records, or the rollups of one granularity) in SQL:
 * one query for the cells (grouped by timeline bucket with date_trunc; on rollups an index-only
 * scan of usage_rollups_sums_idx) and one for the latency histograms per model
 * (usage_latency_bucket on raw records; on rollups the stored histograms expanded with
 * jsonb_each_text and summed per bucket), so only grouped rows cross the wire whatever the number
 * of records. Nothing is cached: every report reads what is stored now.
 */
export async function querySource(
  prisma: PrismaClient,
  source: Segment["source"],
  segments: Segment[],
  unit: TimelineUnit,
  filters: UsageFilters,
): Promise<SourceAggregate> {
  const where = filterSql(filters);
  if (source === "raw") {
    const range = inRanges(Prisma.sql`"timestamp"`, segments);
    const [cells, latency] = await Promise.all([
      rawCells(prisma, range, unit, where),
      rawLatency(prisma, range, where),
    ]);
    return { cells, latency };
  }
  const range = Prisma.sql`"granularity" = ${source} AND ${inRanges(Prisma.sql`"bucketStart"`, segments)}`;
  const [cells, latency] = await Promise.all([
    rollupCells(prisma, range, unit, where),
    coarseLatency(filters) ? modelLatency(prisma, range, where) : rollupLatency(prisma, range, where),
  ]);
  return { cells, latency };
}

/**
 * Without a project, call type or outcome filter the per-model histograms come from
 * usage_latency_rollups (one row per hour/day and model: on the benchmark month 403 day rows and
 * 183,000 histogram entries, against 33,000 rows and 745,000 entries in usage_rollups); a model
 * filter applies to its modelId as well. Any other filter needs the finer usage_rollups.
 */
export function coarseLatency(filters: UsageFilters): boolean {
  return filters.projectIds === undefined && filters.callType === undefined && filters.outcome === undefined;
}

function histograms(rows: Row[]): Map<string, LatencyHistogram> {
  const latency = new Map<string, LatencyHistogram>();
  for (const row of rows) {
    const model = String(row.modelId);
    const histogram = latency.get(model) ?? {};
    histogram[String(row.bucket)] = (histogram[String(row.bucket)] ?? 0) + Number(row.calls);
    latency.set(model, histogram);
  }
  return latency;
}

async function rawCells(prisma: PrismaClient, range: Prisma.Sql, unit: TimelineUnit, where: Prisma.Sql) {
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT (EXTRACT(EPOCH FROM date_trunc(${unit}::text, "timestamp")) * 1000)::bigint AS "bucket",
      COALESCE("modelId", '') AS "modelId", "callType", "outcome",
      COUNT(*)::bigint AS "calls",
      (COUNT(*) FILTER (WHERE "costMicros" IS NULL AND "modelId" IS NOT NULL))::bigint AS "unpricedCalls",
      COALESCE(SUM("costMicros"), 0)::bigint AS "costMicros",
      SUM("inputTokens")::bigint AS "inputTokens", SUM("outputTokens")::bigint AS "outputTokens",
      SUM("cacheTokens")::bigint AS "cacheTokens", SUM("totalTokens")::bigint AS "totalTokens",
      SUM("durationMs")::bigint AS "durationMsSum"
    FROM "usage_records" WHERE ${range} AND ${where}
    GROUP BY 1, 2, 3, 4`;
  return rows.map(toCell);
}

async function rawLatency(prisma: PrismaClient, range: Prisma.Sql, where: Prisma.Sql) {
  return histograms(
    await prisma.$queryRaw<Row[]>`
      SELECT COALESCE("modelId", '') AS "modelId", usage_latency_bucket("durationMs"::bigint) AS "bucket",
        COUNT(*)::bigint AS "calls"
      FROM "usage_records" WHERE ${range} AND ${where}
      GROUP BY 1, 2`,
  );
}

async function rollupCells(prisma: PrismaClient, range: Prisma.Sql, unit: TimelineUnit, where: Prisma.Sql) {
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT (EXTRACT(EPOCH FROM date_trunc(${unit}::text, "bucketStart")) * 1000)::bigint AS "bucket",
      "modelId", "callType", "outcome",
      SUM("calls")::bigint AS "calls", SUM("unpricedCalls")::bigint AS "unpricedCalls",
      SUM("costMicros")::bigint AS "costMicros",
      SUM("inputTokens")::bigint AS "inputTokens", SUM("outputTokens")::bigint AS "outputTokens",
      SUM("cacheTokens")::bigint AS "cacheTokens", SUM("totalTokens")::bigint AS "totalTokens",
      SUM("durationMsSum")::bigint AS "durationMsSum"
    FROM "usage_rollups" WHERE ${range} AND ${where}
    GROUP BY 1, 2, 3, 4`;
  return rows.map(toCell);
}

async function modelLatency(prisma: PrismaClient, range: Prisma.Sql, where: Prisma.Sql) {
  return histograms(
    await prisma.$queryRaw<Row[]>`
      SELECT "modelId", "entry"."key" AS "bucket", SUM("entry"."value"::bigint)::bigint AS "calls"
      FROM "usage_latency_rollups", jsonb_each_text("latency") AS "entry"
      WHERE ${range} AND ${where}
      GROUP BY 1, 2`,
  );
}

async function rollupLatency(prisma: PrismaClient, range: Prisma.Sql, where: Prisma.Sql) {
  return histograms(
    await prisma.$queryRaw<Row[]>`
      SELECT "modelId", "entry"."key" AS "bucket", SUM("entry"."value"::bigint)::bigint AS "calls"
      FROM "usage_rollups", jsonb_each_text("latency") AS "entry"
      WHERE ${range} AND ${where}
      GROUP BY 1, 2`,
  );
}

function toCell(row: Row): CellSums {
  return {
    bucket: Number(row.bucket),
    modelId: String(row.modelId ?? ""),
    callType: String(row.callType),
    outcome: String(row.outcome),
    calls: Number(row.calls),
    unpricedCalls: Number(row.unpricedCalls),
    costMicros: Number(row.costMicros),
    inputTokens: Number(row.inputTokens),
    outputTokens: Number(row.outputTokens),
    cacheTokens: Number(row.cacheTokens),
    totalTokens: Number(row.totalTokens),
    durationMsSum: Number(row.durationMsSum),
  };
}
