import type { Prisma } from "@gw/db";
import type { EndUserDelta, LatencyRollupDelta, RollupDelta } from "./aggregate.js";

/**
 * The upserts adding aggregate deltas to `usage_rollups`, `usage_latency_rollups` and `end_users`. Each statement takes its
 * rows as ONE jsonb parameter (unpacked by jsonb_array_elements), so a large batch never nears
 * PostgreSQL's 65535 bind parameters and the same text works on adapter-pg and PGlite. Rows are
 * inserted in the order given (ORDER BY the array position): callers pass them sorted by key, so
 * concurrent writers take the row locks in one order and cannot deadlock. Timestamps travel as
 * ISO strings; a zone suffix cast to `timestamp` is dropped, leaving the UTC wall time Prisma stores.
 */

/** Aggregate rows per statement: bounds the statement size, not the parameter count. */
const CHUNK = 2_000;

/** The transaction client of `prisma.$transaction(async (tx) => ...)`. */
export type Tx = Prisma.TransactionClient;

export async function upsertRollups(tx: Tx, deltas: readonly RollupDelta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += CHUNK) {
    const json = JSON.stringify(
      deltas.slice(i, i + CHUNK).map((d) => ({
        g: d.granularity,
        b: d.bucketStart.toISOString(),
        p: d.projectId,
        m: d.modelId,
        c: d.callType,
        o: d.outcome,
        calls: d.calls,
        unpriced: d.unpricedCalls,
        cost: d.costMicros.toString(),
        input: d.inputTokens,
        output: d.outputTokens,
        cache: d.cacheTokens,
        total: d.totalTokens,
        duration: d.durationMsSum,
        latency: d.latency,
      })),
    );
    await tx.$executeRaw`
      INSERT INTO "usage_rollups" AS r (
        "granularity", "bucketStart", "projectId", "modelId", "callType", "outcome", "calls",
        "unpricedCalls", "costMicros", "inputTokens", "outputTokens", "cacheTokens", "totalTokens",
        "durationMsSum", "latency"
      )
      SELECT v->>'g', (v->>'b')::timestamp(3), v->>'p', v->>'m', v->>'c', v->>'o',
        (v->>'calls')::integer, (v->>'unpriced')::integer, (v->>'cost')::bigint,
        (v->>'input')::bigint, (v->>'output')::bigint, (v->>'cache')::bigint,
        (v->>'total')::bigint, (v->>'duration')::bigint, v->'latency'
      FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS e(v, position)
      ORDER BY position
      ON CONFLICT ("granularity", "bucketStart", "projectId", "modelId", "callType", "outcome")
      DO UPDATE SET
        "calls" = r."calls" + EXCLUDED."calls",
        "unpricedCalls" = r."unpricedCalls" + EXCLUDED."unpricedCalls",
        "costMicros" = r."costMicros" + EXCLUDED."costMicros",
        "inputTokens" = r."inputTokens" + EXCLUDED."inputTokens",
        "outputTokens" = r."outputTokens" + EXCLUDED."outputTokens",
        "cacheTokens" = r."cacheTokens" + EXCLUDED."cacheTokens",
        "totalTokens" = r."totalTokens" + EXCLUDED."totalTokens",
        "durationMsSum" = r."durationMsSum" + EXCLUDED."durationMsSum",
        "latency" = usage_latency_merge(r."latency", EXCLUDED."latency")`;
  }
}

export async function upsertLatencyRollups(tx: Tx, deltas: readonly LatencyRollupDelta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += CHUNK) {
    const json = JSON.stringify(
      deltas.slice(i, i + CHUNK).map((d) => ({
        g: d.granularity,
        b: d.bucketStart.toISOString(),
        m: d.modelId,
        latency: d.latency,
      })),
    );
    await tx.$executeRaw`
      INSERT INTO "usage_latency_rollups" AS r ("granularity", "bucketStart", "modelId", "latency")
      SELECT v->>'g', (v->>'b')::timestamp(3), v->>'m', v->'latency'
      FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS e(v, position)
      ORDER BY position
      ON CONFLICT ("granularity", "bucketStart", "modelId")
      DO UPDATE SET "latency" = usage_latency_merge(r."latency", EXCLUDED."latency")`;
  }
}

export async function upsertEndUsers(tx: Tx, deltas: readonly EndUserDelta[]): Promise<void> {
  for (let i = 0; i < deltas.length; i += CHUNK) {
    const json = JSON.stringify(
      deltas.slice(i, i + CHUNK).map((d) => ({
        p: d.projectId,
        u: d.userId,
        first: d.firstSeen.toISOString(),
        last: d.lastSeen.toISOString(),
        requests: d.requests,
        tokens: d.totalTokens,
        cost: d.totalCostMicros.toString(),
        unpriced: d.unpricedCalls,
      })),
    );
    await tx.$executeRaw`
      INSERT INTO "end_users" AS u (
        "projectId", "userId", "firstSeen", "lastSeen", "requests", "totalTokens",
        "totalCostMicros", "unpricedCalls"
      )
      SELECT v->>'p', v->>'u', (v->>'first')::timestamp(3), (v->>'last')::timestamp(3),
        (v->>'requests')::integer, (v->>'tokens')::bigint, (v->>'cost')::bigint,
        (v->>'unpriced')::integer
      FROM jsonb_array_elements(${json}::jsonb) WITH ORDINALITY AS e(v, position)
      ORDER BY position
      ON CONFLICT ("projectId", "userId") DO UPDATE SET
        "firstSeen" = LEAST(u."firstSeen", EXCLUDED."firstSeen"),
        "lastSeen" = GREATEST(u."lastSeen", EXCLUDED."lastSeen"),
        "requests" = u."requests" + EXCLUDED."requests",
        "totalTokens" = u."totalTokens" + EXCLUDED."totalTokens",
        "totalCostMicros" = u."totalCostMicros" + EXCLUDED."totalCostMicros",
        "unpricedCalls" = u."unpricedCalls" + EXCLUDED."unpricedCalls"`;
  }
}
