import type { Prisma } from "@gw/db";
import { type LatencyHistogram, latencyBucket } from "@gw/metrics";

/**
 * Pure aggregation of stored usage rows into the deltas usage-writer adds to `usage_rollups`,
 * `usage_latency_rollups` and `end_users`. Only rows the same transaction actually inserted are passed in, which is what makes
 * the aggregates exact under redelivery (see store-rows.ts). Keys come out sorted so every writer
 * locks aggregate rows in the same order (two replicas never deadlock on them).
 */

export type UsageRow = Prisma.UsageRecordCreateManyInput;
export type Granularity = "hour" | "day";

const GRANULARITY_MS: Record<Granularity, number> = { hour: 3_600_000, day: 86_400_000 };

/** What one group of rows adds to one `usage_rollups` row. */
export interface RollupDelta {
  granularity: Granularity;
  /** UTC start of the hour or day. */
  bucketStart: Date;
  projectId: string;
  /** "" when the record names no model. */
  modelId: string;
  callType: string;
  outcome: string;
  calls: number;
  unpricedCalls: number;
  costMicros: bigint;
  inputTokens: number;
  outputTokens: number;
  cacheTokens: number;
  totalTokens: number;
  durationMsSum: number;
  latency: LatencyHistogram;
}

/**
 * What one group of rows adds to one `usage_latency_rollups` row: the latency histogram per
 * hour/day and model only, read by GET /api/usage when no project, call type or outcome filter
 * asks for the finer usage_rollups histograms.
 */
export interface LatencyRollupDelta {
  granularity: Granularity;
  bucketStart: Date;
  /** "" when the record names no model. */
  modelId: string;
  latency: LatencyHistogram;
}

/** What one group of rows adds to one `end_users` row. */
export interface EndUserDelta {
  projectId: string;
  userId: string;
  firstSeen: Date;
  lastSeen: Date;
  /** Completion calls only. */
  requests: number;
  /** Input plus output tokens of every call. */
  totalTokens: number;
  totalCostMicros: bigint;
  unpricedCalls: number;
}

/** The UTC start of the hour or day holding `at` (epoch ms has no leap seconds: a plain floor). */
export function bucketStart(at: Date, granularity: Granularity): Date {
  const size = GRANULARITY_MS[granularity];
  return new Date(Math.floor(at.getTime() / size) * size);
}

/** Rows with the same id keep the first: a batch can hold a redelivery of its own record. */
export function dedupeById(rows: readonly UsageRow[]): UsageRow[] {
  const seen = new Set<string>();
  const unique: UsageRow[] = [];
  for (const row of rows) {
    if (seen.has(row.id)) continue;
    seen.add(row.id);
    unique.push(row);
  }
  return unique;
}

/** Hour and day rollup deltas of `rows`, sorted by their primary key. */
export function rollupDeltas(rows: readonly UsageRow[]): RollupDelta[] {
  const groups = new Map<string, RollupDelta>();
  for (const row of rows) {
    const at = new Date(row.timestamp);
    for (const granularity of ["hour", "day"] as const) {
      const start = bucketStart(at, granularity);
      const modelId = row.modelId ?? "";
      const callType = row.callType ?? "completion";
      const key = rollupKey(granularity, start, row.projectId, modelId, callType, row.outcome);
      let delta = groups.get(key);
      if (!delta) {
        delta = {
          granularity,
          bucketStart: start,
          projectId: row.projectId,
          modelId,
          callType,
          outcome: row.outcome,
          calls: 0,
          unpricedCalls: 0,
          costMicros: 0n,
          inputTokens: 0,
          outputTokens: 0,
          cacheTokens: 0,
          totalTokens: 0,
          durationMsSum: 0,
          latency: {},
        };
        groups.set(key, delta);
      }
      addToRollup(delta, row);
    }
  }
  return [...groups.entries()].sort(([a], [b]) => compare(a, b)).map(([, delta]) => delta);
}

/** Hour and day latency-rollup deltas of `rows`, sorted by their primary key. */
export function latencyRollupDeltas(rows: readonly UsageRow[]): LatencyRollupDelta[] {
  const groups = new Map<string, LatencyRollupDelta>();
  for (const row of rows) {
    const at = new Date(row.timestamp);
    const bucket = String(latencyBucket(row.durationMs ?? 0));
    for (const granularity of ["hour", "day"] as const) {
      const start = bucketStart(at, granularity);
      const modelId = row.modelId ?? "";
      const key = [granularity, start.toISOString(), modelId].join("\u0000");
      let delta = groups.get(key);
      if (!delta) {
        delta = { granularity, bucketStart: start, modelId, latency: {} };
        groups.set(key, delta);
      }
      delta.latency[bucket] = (delta.latency[bucket] ?? 0) + 1;
    }
  }
  return [...groups.entries()].sort(([a], [b]) => compare(a, b)).map(([, delta]) => delta);
}

/** End-user deltas of the rows naming an end user, sorted by (projectId, userId). */
export function endUserDeltas(rows: readonly UsageRow[]): EndUserDelta[] {
  const groups = new Map<string, EndUserDelta>();
  for (const row of rows) {
    if (!row.endUserId) continue;
    const at = new Date(row.timestamp);
    const key = `${row.projectId}\u0000${row.endUserId}`;
    let delta = groups.get(key);
    if (!delta) {
      delta = {
        projectId: row.projectId,
        userId: row.endUserId,
        firstSeen: at,
        lastSeen: at,
        requests: 0,
        totalTokens: 0,
        totalCostMicros: 0n,
        unpricedCalls: 0,
      };
      groups.set(key, delta);
    }
    if (at < delta.firstSeen) delta.firstSeen = at;
    if (at > delta.lastSeen) delta.lastSeen = at;
    if ((row.callType ?? "completion") === "completion") delta.requests += 1;
    delta.totalTokens += (row.inputTokens ?? 0) + (row.outputTokens ?? 0);
    const cost = costOf(row);
    if (cost === null) delta.unpricedCalls += isUnpriced(row) ? 1 : 0;
    else delta.totalCostMicros += cost;
  }
  return [...groups.entries()].sort(([a], [b]) => compare(a, b)).map(([, delta]) => delta);
}

function addToRollup(delta: RollupDelta, row: UsageRow): void {
  const durationMs = row.durationMs ?? 0;
  delta.calls += 1;
  const cost = costOf(row);
  if (cost === null) delta.unpricedCalls += isUnpriced(row) ? 1 : 0;
  else delta.costMicros += cost;
  delta.inputTokens += row.inputTokens ?? 0;
  delta.outputTokens += row.outputTokens ?? 0;
  delta.cacheTokens += row.cacheTokens ?? 0;
  delta.totalTokens += row.totalTokens ?? 0;
  delta.durationMsSum += durationMs;
  const bucket = String(latencyBucket(durationMs));
  delta.latency[bucket] = (delta.latency[bucket] ?? 0) + 1;
}

function costOf(row: UsageRow): bigint | null {
  return row.costMicros === null || row.costMicros === undefined ? null : BigInt(row.costMicros);
}

/** No price AND a model: a record refused before routing (no model) costs nothing, knowingly. */
function isUnpriced(row: UsageRow): boolean {
  return costOf(row) === null && row.modelId !== null && row.modelId !== undefined;
}

function rollupKey(
  granularity: Granularity,
  start: Date,
  projectId: string,
  modelId: string,
  callType: string,
  outcome: string,
): string {
  // NUL never appears in ids, so the joined key sorts like the tuple (byte order, as in JS).
  return [granularity, start.toISOString(), projectId, modelId, callType, outcome].join("\u0000");
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
