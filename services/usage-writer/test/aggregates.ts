import assert from "node:assert/strict";
import type { OpenDatabase } from "./databases.js";

/** Every stored record, rollup and end user, in a stable order. */
export async function snapshot(open: OpenDatabase) {
  const prisma = open.db.prisma;
  return {
    records: await prisma.usageRecord.findMany({ orderBy: { id: "asc" } }),
    rollups: await prisma.usageRollup.findMany({
      orderBy: [
        { granularity: "asc" },
        { bucketStart: "asc" },
        { projectId: "asc" },
        { modelId: "asc" },
        { callType: "asc" },
        { outcome: "asc" },
      ],
    }),
    latencyRollups: await prisma.usageLatencyRollup.findMany({
      orderBy: [{ granularity: "asc" }, { bucketStart: "asc" }, { modelId: "asc" }],
    }),
    endUsers: await prisma.endUser.findMany({ orderBy: [{ projectId: "asc" }, { userId: "asc" }] }),
  };
}

/**
 * The rollups, latency rollups and end users the writer kept equal the ones recomputed from
 * usage_records by a GROUP BY (the same queries as the migration's backfill), histograms included.
 */
export async function assertAggregatesExact(open: OpenDatabase): Promise<void> {
  const prisma = open.db.prisma;
  const expected = await prisma.$queryRaw<Record<string, unknown>[]>`
    SELECT "granularity", "bucketStart", "projectId", "modelId", "callType", "outcome",
      SUM("calls")::INTEGER AS "calls", SUM("unpriced")::INTEGER AS "unpricedCalls",
      SUM("cost")::BIGINT AS "costMicros", SUM("input")::BIGINT AS "inputTokens",
      SUM("output")::BIGINT AS "outputTokens", SUM("cache")::BIGINT AS "cacheTokens",
      SUM("total")::BIGINT AS "totalTokens", SUM("duration")::BIGINT AS "durationMsSum",
      jsonb_object_agg("bucket"::TEXT, "calls") AS "latency"
    FROM (
      SELECT g."granularity", date_trunc(g."granularity", r."timestamp") AS "bucketStart",
        r."projectId", COALESCE(r."modelId", '') AS "modelId", r."callType", r."outcome",
        usage_latency_bucket(r."durationMs") AS "bucket", COUNT(*) AS "calls",
        COUNT(*) FILTER (WHERE r."costMicros" IS NULL AND r."modelId" IS NOT NULL) AS "unpriced",
        COALESCE(SUM(r."costMicros"), 0) AS "cost", SUM(r."inputTokens") AS "input",
        SUM(r."outputTokens") AS "output", SUM(r."cacheTokens") AS "cache",
        SUM(r."totalTokens") AS "total", SUM(r."durationMs") AS "duration"
      FROM "usage_records" r CROSS JOIN (VALUES ('hour'), ('day')) AS g("granularity")
      GROUP BY 1, 2, 3, 4, 5, 6, 7
    ) AS per_bucket
    GROUP BY 1, 2, 3, 4, 5, 6
    ORDER BY 1, 2, 3, 4, 5, 6`;
  const { rollups, latencyRollups, endUsers } = await snapshot(open);
  assert.equal(rollups.length, expected.length, "rollup rows");
  assert.deepEqual(
    rollups.map((r) => ({ ...r, latency: normalise(r.latency) })),
    expected.map((r) => ({ ...r, latency: normalise(r.latency) })),
  );
  const expectedLatency = await prisma.$queryRaw<Record<string, unknown>[]>`
    SELECT "granularity", "bucketStart", "modelId", jsonb_object_agg("bucket"::TEXT, "calls") AS "latency"
    FROM (
      SELECT g."granularity", date_trunc(g."granularity", r."timestamp") AS "bucketStart",
        COALESCE(r."modelId", '') AS "modelId", usage_latency_bucket(r."durationMs") AS "bucket",
        COUNT(*) AS "calls"
      FROM "usage_records" r CROSS JOIN (VALUES ('hour'), ('day')) AS g("granularity")
      GROUP BY 1, 2, 3, 4
    ) AS per_bucket
    GROUP BY 1, 2, 3
    ORDER BY 1, 2, 3`;
  assert.equal(latencyRollups.length, expectedLatency.length, "latency rollup rows");
  assert.deepEqual(
    latencyRollups.map((r) => ({ ...r, latency: normalise(r.latency) })),
    expectedLatency.map((r) => ({ ...r, latency: normalise(r.latency) })),
  );
  const expectedUsers = await prisma.$queryRaw<Record<string, unknown>[]>`
    SELECT "projectId", "endUserId" AS "userId", MIN("timestamp") AS "firstSeen",
      MAX("timestamp") AS "lastSeen",
      (COUNT(*) FILTER (WHERE "callType" = 'completion'))::INTEGER AS "requests",
      SUM("inputTokens" + "outputTokens")::BIGINT AS "totalTokens",
      COALESCE(SUM("costMicros"), 0)::BIGINT AS "totalCostMicros",
      (COUNT(*) FILTER (WHERE "costMicros" IS NULL AND "modelId" IS NOT NULL))::INTEGER AS "unpricedCalls"
    FROM "usage_records" WHERE "endUserId" IS NOT NULL
    GROUP BY 1, 2 ORDER BY 1, 2`;
  assert.deepEqual(endUsers, expectedUsers);
}

/** A histogram as sorted [bucket, calls] pairs (jsonb key order is not the test's business). */
function normalise(histogram: unknown): [string, number][] {
  return Object.entries(histogram as Record<string, number>)
    .map(([bucket, calls]) => [bucket, Number(calls)] as [string, number])
    .sort((a, b) => Number(a[0]) - Number(b[0]));
}
