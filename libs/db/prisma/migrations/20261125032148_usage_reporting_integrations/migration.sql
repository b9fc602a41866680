-- CreateTable
CREATE TABLE "usage_rollups" (
    "granularity" TEXT NOT NULL,
    "bucketStart" TIMESTAMP(3) NOT NULL,
    "projectId" TEXT NOT NULL,
    "modelId" TEXT NOT NULL,
    "callType" TEXT NOT NULL,
    "outcome" TEXT NOT NULL,
    "calls" INTEGER NOT NULL,
    "unpricedCalls" INTEGER NOT NULL,
    "costMicros" BIGINT NOT NULL,
    "inputTokens" BIGINT NOT NULL,
    "outputTokens" BIGINT NOT NULL,
    "cacheTokens" BIGINT NOT NULL,
    "totalTokens" BIGINT NOT NULL,
    "durationMsSum" BIGINT NOT NULL,
    "latency" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "usage_rollups_pkey" PRIMARY KEY ("granularity","bucketStart","projectId","modelId","callType","outcome")
);

-- CreateTable
CREATE TABLE "end_users" (
    "projectId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "firstSeen" TIMESTAMP(3) NOT NULL,
    "lastSeen" TIMESTAMP(3) NOT NULL,
    "requests" INTEGER NOT NULL,
    "totalTokens" BIGINT NOT NULL,
    "totalCostMicros" BIGINT NOT NULL,
    "unpricedCalls" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "end_users_pkey" PRIMARY KEY ("projectId","userId")
);

-- CreateTable
CREATE TABLE "integrations" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "config" JSONB NOT NULL DEFAULT '{}',
    "secretsEncrypted" TEXT,
    "lastPushAt" TIMESTAMP(3),
    "lastPushOk" BOOLEAN,
    "lastPushMessage" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "integrations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_latency_rollups" (
    "granularity" TEXT NOT NULL,
    "bucketStart" TIMESTAMP(3) NOT NULL,
    "modelId" TEXT NOT NULL,
    "latency" JSONB NOT NULL DEFAULT '{}',

    CONSTRAINT "usage_latency_rollups_pkey" PRIMARY KEY ("granularity","bucketStart","modelId")
);

-- CreateIndex
CREATE INDEX "end_users_lastSeen_idx" ON "end_users"("lastSeen");

-- CreateIndex
CREATE INDEX "usage_records_modelId_timestamp_idx" ON "usage_records"("modelId", "timestamp");

-- hand-edited: SQL functions for the latency histograms of usage_rollups and usage_latency_rollups,
-- a covering index for the sums of GET /api/usage (INCLUDE: not expressible in schema.prisma), and
-- a backfill of the rollups and end users from the records stored before this migration.

-- The histogram bucket of a latency in ms: exact below 100 ms; from 100 up rounded down to a step
-- of (leading digit x 10^(digits - 3)) ms (100..199 step 1, 200..299 step 2, 1000..1999 step 10,
-- 2000..2999 step 20 ...): under 1 % error with ~280 buckets per decade. libs/metrics
-- latencyBucket is the same function in TypeScript.
CREATE FUNCTION usage_latency_bucket(ms BIGINT) RETURNS BIGINT LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN ms < 100 THEN GREATEST(ms, 0)
    ELSE (ms / (left(ms::text, 1)::BIGINT * (10 ^ (length(ms::text) - 3))::BIGINT))
      * (left(ms::text, 1)::BIGINT * (10 ^ (length(ms::text) - 3))::BIGINT)
  END
$$;

-- Sum two histograms { "<bucket>": calls } key by key.
CREATE FUNCTION usage_latency_merge(a JSONB, b JSONB) RETURNS JSONB LANGUAGE sql IMMUTABLE AS $$
  SELECT COALESCE(jsonb_object_agg(key, total), '{}'::JSONB)
  FROM (
    SELECT key, SUM(value::BIGINT) AS total
    FROM (SELECT * FROM jsonb_each_text(a) UNION ALL SELECT * FROM jsonb_each_text(b)) AS both_sides
    GROUP BY key
  ) AS merged
$$;

INSERT INTO "usage_rollups" (
  "granularity", "bucketStart", "projectId", "modelId", "callType", "outcome", "calls",
  "unpricedCalls", "costMicros", "inputTokens", "outputTokens", "cacheTokens", "totalTokens",
  "durationMsSum", "latency"
)
SELECT "granularity", "bucketStart", "projectId", "modelId", "callType", "outcome",
  SUM("calls")::INTEGER, SUM("unpriced")::INTEGER, SUM("cost"), SUM("input"), SUM("output"),
  SUM("cache"), SUM("total"), SUM("duration"), jsonb_object_agg("bucket"::TEXT, "calls")
FROM (
  SELECT g."granularity", date_trunc(g."granularity", r."timestamp") AS "bucketStart",
    r."projectId", COALESCE(r."modelId", '') AS "modelId", r."callType", r."outcome",
    usage_latency_bucket(r."durationMs") AS "bucket",
    COUNT(*) AS "calls",
    COUNT(*) FILTER (WHERE r."costMicros" IS NULL AND r."modelId" IS NOT NULL) AS "unpriced",
    COALESCE(SUM(r."costMicros"), 0) AS "cost",
    SUM(r."inputTokens") AS "input", SUM(r."outputTokens") AS "output",
    SUM(r."cacheTokens") AS "cache", SUM(r."totalTokens") AS "total",
    SUM(r."durationMs") AS "duration"
  FROM "usage_records" r CROSS JOIN (VALUES ('hour'), ('day')) AS g("granularity")
  GROUP BY 1, 2, 3, 4, 5, 6, 7
) AS per_bucket
GROUP BY 1, 2, 3, 4, 5, 6;

INSERT INTO "end_users" (
  "projectId", "userId", "firstSeen", "lastSeen", "requests", "totalTokens", "totalCostMicros",
  "unpricedCalls"
)
SELECT "projectId", "endUserId", MIN("timestamp"), MAX("timestamp"),
  (COUNT(*) FILTER (WHERE "callType" = 'completion'))::INTEGER,
  SUM("inputTokens" + "outputTokens"), COALESCE(SUM("costMicros"), 0),
  (COUNT(*) FILTER (WHERE "costMicros" IS NULL AND "modelId" IS NOT NULL))::INTEGER
FROM "usage_records"
WHERE "endUserId" IS NOT NULL
GROUP BY 1, 2;

INSERT INTO "usage_latency_rollups" ("granularity", "bucketStart", "modelId", "latency")
SELECT "granularity", "bucketStart", "modelId", jsonb_object_agg("bucket"::TEXT, "calls")
FROM (
  SELECT g."granularity", date_trunc(g."granularity", r."timestamp") AS "bucketStart",
    COALESCE(r."modelId", '') AS "modelId", usage_latency_bucket(r."durationMs") AS "bucket",
    COUNT(*) AS "calls"
  FROM "usage_records" r CROSS JOIN (VALUES ('hour'), ('day')) AS g("granularity")
  GROUP BY 1, 2, 3, 4
) AS per_bucket
GROUP BY 1, 2, 3;

-- The sums of GET /api/usage read every rollup row of a range but never the wide latency column:
-- with the dims and sums in the index, that read is an index-only scan (once vacuumed) instead of
-- a scan of the table and its large jsonb histograms.
CREATE INDEX "usage_rollups_sums_idx" ON "usage_rollups" ("granularity", "bucketStart")
  INCLUDE ("projectId", "modelId", "callType", "outcome", "calls", "unpricedCalls", "costMicros",
    "inputTokens", "outputTokens", "cacheTokens", "totalTokens", "durationMsSum");
