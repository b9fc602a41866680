/**
 * The planner's answer (raw edges + hourly + daily rollups, merged in JS) must equal a brute-force
 * aggregate of the very records, for random ranges and filter combinations. Records are stored
 * with usage-writer's storeUsageRows, which fills the rollups in the same transaction. Runs on
 * PGlite always and on PostgreSQL when DATABASE_URL is set (a throwaway database).
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { createDatabase, type Database, type Prisma } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { histogramPercentile, type LatencyHistogram, latencyBucket } from "@gw/metrics";
import { storeUsageRows } from "@gw/service-usage-writer";
import { seededRandom } from "@gw/testing";
import type { UsageFilters } from "./filters.js";
import { usd } from "./merge.js";
import { planSegments } from "./plan.js";
import { recordPage } from "./records.js";
import { aggregateUsage } from "./report.js";
import { coarseLatency } from "./segment-queries.js";
import { bucketStarts, floorTo, timelineUnit } from "./timeline.js";

type Row = Prisma.UsageRecordCreateManyInput & { timestamp: Date };

const PROJECTS = ["proj_a", "proj_b", "proj_c"];
const MODELS = ["m-one", "m-two", "m-three", "m-free", null];
const CALL_TYPES = ["completion", "completion", "completion", "routing", "guardrail"];
const OUTCOMES = ["success", "success", "success", "error", "budget_exceeded", "timeout", "blocked"];
const START = Date.UTC(2028, 1, 26, 7, 13); // across the leap day 2028-02-29
const SPAN = 6 * 86_400_000;

function makeRows(count: number, random: () => number): Row[] {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const modelId = pick(MODELS);
    const input = Math.floor(random() * 2000);
    const output = Math.floor(random() * 800);
    // Some records land exactly on hour and day edges, where off-by-one errors live.
    const edge = random() < 0.05;
    const timestamp = new Date(
      edge
        ? floorTo(random() < 0.5 ? "hour" : "day", START + random() * SPAN)
        : START + Math.floor(random() * SPAN),
    );
    return {
      id: `rec_${String(i).padStart(6, "0")}`,
      timestamp,
      projectId: pick(PROJECTS),
      projectSlug: "slug",
      modelId,
      provider: modelId ? "openai" : null,
      inputTokens: input,
      outputTokens: output,
      cacheTokens: Math.floor(random() * 50),
      totalTokens: input + output,
      costMicros: modelId === null || modelId === "m-free" ? null : BigInt(input * 3 + output * 7),
      durationMs: random() < 0.7 ? Math.floor(random() * 1000) : Math.floor(random() * 40_000),
      outcome: pick(OUTCOMES),
      status: 200,
      traceId: `trace_${i}`,
      callType: pick(CALL_TYPES),
    };
  });
}

function matches(row: Row, filters: UsageFilters, from: number, to: number): boolean {
  const t = row.timestamp.getTime();
  if (t < from || t >= to) return false;
  if (filters.projectIds && !filters.projectIds.includes(row.projectId)) return false;
  if (filters.modelIds && !filters.modelIds.includes(row.modelId ?? "")) return false;
  if (filters.callType && row.callType !== filters.callType) return false;
  if (filters.outcome === "error") return row.outcome !== "success" && row.outcome !== "blocked";
  if (filters.outcome && row.outcome !== filters.outcome) return false;
  return true;
}

const average = (sum: number, calls: number) => (calls === 0 ? 0 : Math.round((sum / calls) * 10) / 10);

/** The report computed record by record, independently of the planner. */
function bruteForce(rows: Row[], filters: UsageFilters, from: Date, to: Date) {
  const unit = timelineUnit(from, to);
  const hit = rows.filter((row) => matches(row, filters, from.getTime(), to.getTime()));
  const micros = (list: Row[]) => list.reduce((sum, row) => sum + Number(row.costMicros ?? 0), 0);
  const sum = (
    list: Row[],
    field: "inputTokens" | "outputTokens" | "cacheTokens" | "totalTokens" | "durationMs",
  ) => list.reduce((total, row) => total + Number(row[field] ?? 0), 0);
  const histogram = (list: Row[]) => {
    const h: LatencyHistogram = {};
    for (const row of list) h[latencyBucket(row.durationMs!)] = (h[latencyBucket(row.durationMs!)] ?? 0) + 1;
    return h;
  };
  const ofType = (type: string) => hit.filter((row) => row.callType === type);
  const isError = (row: Row) => row.outcome !== "success" && row.outcome !== "blocked";
  const summary = {
    totalCalls: hit.length,
    successCalls: hit.filter((row) => row.outcome === "success").length,
    blockedCalls: hit.filter((row) => row.outcome === "blocked").length,
    errorCalls: hit.filter(isError).length,
    completionCalls: ofType("completion").length,
    routingCalls: ofType("routing").length,
    guardrailCalls: ofType("guardrail").length,
    inputTokens: sum(hit, "inputTokens"),
    outputTokens: sum(hit, "outputTokens"),
    cacheTokens: sum(hit, "cacheTokens"),
    totalTokens: sum(hit, "totalTokens"),
    unpricedCalls: hit.filter((row) => row.costMicros === null && row.modelId !== null).length,
    totalCost: usd(micros(hit)),
    completionCost: usd(micros(ofType("completion"))),
    routingCost: usd(micros(ofType("routing"))),
    guardrailCost: usd(micros(ofType("guardrail"))),
    avgLatencyMs: average(sum(hit, "durationMs"), hit.length),
    p95LatencyMs: histogramPercentile(histogram(hit), 0.95),
  };
  const byModel: Record<string, unknown> = {};
  for (const model of [...new Set(hit.map((row) => row.modelId).filter((id) => id !== null))].sort()) {
    const list = hit.filter((row) => row.modelId === model);
    byModel[model as string] = {
      calls: list.length,
      cost: usd(micros(list)),
      success: list.filter((row) => row.outcome === "success").length,
      avgLatencyMs: average(sum(list, "durationMs"), list.length),
      p95LatencyMs: histogramPercentile(histogram(list), 0.95),
      totalTokens: sum(list, "totalTokens"),
      unpricedCalls: list.filter((row) => row.costMicros === null).length,
    };
  }
  const timeline = bucketStarts(unit, from, to).map((start) => {
    const list = hit.filter((row) => floorTo(unit, row.timestamp.getTime()) === start);
    return {
      start: new Date(start).toISOString(),
      calls: list.length,
      cost: usd(micros(list)),
      successCalls: list.filter((row) => row.outcome === "success").length,
      errorCalls: list.filter(isError).length,
      blockedCalls: list.filter((row) => row.outcome === "blocked").length,
      totalTokens: sum(list, "totalTokens"),
    };
  });
  return { summary, byModel, timeline, hit };
}

function randomFilters(random: () => number): UsageFilters {
  const some = <T>(items: T[]) => items.filter(() => random() < 0.5);
  const filters: UsageFilters = {};
  if (random() < 0.3) filters.projectIds = some(PROJECTS).concat(random() < 0.2 ? ["proj_unknown"] : []);
  if (random() < 0.3) filters.modelIds = some(["m-one", "m-two", "m-three", "m-free"]);
  if (random() < 0.3) filters.callType = ["completion", "routing", "guardrail"][Math.floor(random() * 3)]!;
  if (random() < 0.4)
    filters.outcome = ["success", "error", "budget_exceeded", "timeout", "blocked"][
      Math.floor(random() * 5)
    ]!;
  if (filters.projectIds?.length === 0) delete filters.projectIds;
  if (filters.modelIds?.length === 0) delete filters.modelIds;
  return filters;
}

/** A random range inside (and a little around) the data, often snapped to minute/hour/day edges. */
function randomRange(random: () => number): { from: Date; to: Date } {
  const snap = (ms: number) => {
    const r = random();
    return r < 0.2
      ? floorTo("day", ms)
      : r < 0.4
        ? floorTo("hour", ms)
        : r < 0.5
          ? floorTo("minute", ms)
          : ms;
  };
  const from = snap(START - 3_600_000 + Math.floor(random() * (SPAN + 2 * 3_600_000)));
  const length =
    random() < 0.3 ? random() * 2 * 3_600_000 : random() < 0.5 ? random() * 2 * 86_400_000 : random() * SPAN;
  return { from: new Date(from), to: new Date(Math.max(from, snap(from + Math.floor(length)))) };
}

interface Backend {
  name: string;
  open(): Promise<{ db: Database; close(): Promise<void> }>;
}

const backends: Backend[] = [
  {
    name: "PGlite",
    async open() {
      const db = await createDatabase();
      await db.migrate();
      return { db, close: () => db.close() };
    },
  },
];
const adminUrl = process.env.DATABASE_URL;
if (adminUrl)
  backends.push({
    name: "PostgreSQL",
    async open() {
      const testDb = await createTestDatabaseUrl(adminUrl);
      const db = await createDatabase({ url: testDb.url, poolMax: 6 });
      await db.migrate();
      return {
        db,
        close: async () => {
          await db.close();
          await testDb.drop();
        },
      };
    },
  });

for (const backend of backends) {
  describe(`usage planner against brute force (${backend.name})`, () => {
    let opened: Awaited<ReturnType<Backend["open"]>>;
    const rows = makeRows(4000, seededRandom(42));

    before(async () => {
      opened = await backend.open();
      for (let i = 0; i < rows.length; i += 500)
        await storeUsageRows(opened.db.prisma, rows.slice(i, i + 500));
    });
    after(() => opened?.close());

    it("equals the records' own sums for random ranges and filters", async () => {
      const random = seededRandom(7);
      const units = new Set<string>();
      // Rollup segments read their histograms from usage_latency_rollups without a project, call
      // type or outcome filter and from usage_rollups otherwise: both must be exercised.
      const histogramSources = new Set<string>();
      for (let i = 0; i < 60; i++) {
        const { from, to } = randomRange(random);
        const filters = randomFilters(random);
        units.add(timelineUnit(from, to));
        if (planSegments(from, to, timelineUnit(from, to)).some((s) => s.source !== "raw"))
          histogramSources.add(coarseLatency(filters) ? "usage_latency_rollups" : "usage_rollups");
        const expected = bruteForce(rows, filters, from, to);
        const actual = await aggregateUsage(opened.db.prisma, filters, from, to);
        const context = `${from.toISOString()}..${to.toISOString()} ${JSON.stringify(filters)}`;
        assert.deepEqual(actual.summary, expected.summary, context);
        assert.deepEqual(actual.byModel, expected.byModel, context);
        assert.deepEqual(actual.timeline, expected.timeline, context);
      }
      assert.deepEqual([...units].sort(), ["day", "hour", "minute"]);
      assert.deepEqual([...histogramSources].sort(), ["usage_latency_rollups", "usage_rollups"]);
    });

    it("reads whole days, leap day included, from the rollups exactly", async () => {
      const from = new Date(Date.UTC(2028, 1, 27));
      const to = new Date(Date.UTC(2028, 2, 2));
      const expected = bruteForce(rows, {}, from, to);
      const actual = await aggregateUsage(opened.db.prisma, {}, from, to);
      assert.ok(expected.summary.totalCalls > 1000);
      assert.deepEqual(actual, {
        summary: expected.summary,
        byModel: expected.byModel,
        timeline: expected.timeline,
      });
      assert.equal(actual.timeline.find((b) => b.start.startsWith("2028-02-29"))?.calls !== undefined, true);
      // A week timeline (range over 92 days) sums to the same totals.
      const long = await aggregateUsage(
        opened.db.prisma,
        {},
        new Date(Date.UTC(2028, 0, 1)),
        new Date(Date.UTC(2028, 5, 1)),
      );
      assert.equal(long.summary.totalCalls, rows.length);
      assert.equal(
        long.timeline.reduce((s, b) => s + b.calls, 0),
        rows.length,
      );
      assert.equal(new Date(long.timeline[0]!.start).getUTCDay(), 1);
    });

    it("answers nothing for an empty range and for filters nothing matches", async () => {
      const at = new Date(START + 3_600_000);
      const empty = await aggregateUsage(opened.db.prisma, {}, at, at);
      assert.equal(empty.summary.totalCalls, 0);
      assert.equal(empty.summary.p95LatencyMs, null);
      assert.deepEqual(empty.timeline, []);
      const none = await aggregateUsage(
        opened.db.prisma,
        { projectIds: [] },
        new Date(START),
        new Date(START + SPAN),
      );
      assert.equal(none.summary.totalCalls, 0);
      assert.ok(none.timeline.length > 0 && none.timeline.every((b) => b.calls === 0));
    });

    // Both histogram sources (usage_latency_rollups, then usage_rollups under a call type filter),
    // each with slow calls slower than any before, so a stale histogram could not show them.
    const slowCases: [UsageFilters, number][] = [
      [{ modelIds: ["m-one", "m-two"] }, 987_654],
      [{ modelIds: ["m-two"], callType: "completion" }, 1_987_654],
    ];
    for (const [filters, slowMs] of slowCases)
      it(`never answers from stale histograms after new records (${JSON.stringify(filters)})`, async () => {
        const from = new Date(Date.UTC(2028, 1, 27));
        const to = new Date(Date.UTC(2028, 2, 2));
        const first = await aggregateUsage(opened.db.prisma, filters, from, to);
        assert.deepEqual(await aggregateUsage(opened.db.prisma, filters, from, to), first);
        // Slow calls on the leap day, enough to move m-two's p95: a stale cached histogram would not.
        const late = Array.from({ length: 200 }, (_, i) => ({
          ...rows[0]!,
          id: `rec_late_${slowMs}_${i}`,
          callType: "completion",
          timestamp: new Date(Date.UTC(2028, 1, 29, 12, 0, i)),
          modelId: "m-two",
          outcome: "success",
          durationMs: slowMs,
        }));
        rows.push(...late);
        await storeUsageRows(opened.db.prisma, late);
        const expected = bruteForce(rows, filters, from, to);
        const again = await aggregateUsage(opened.db.prisma, filters, from, to);
        assert.deepEqual(again, {
          summary: expected.summary,
          byModel: expected.byModel,
          timeline: expected.timeline,
        });
        assert.equal(again.summary.totalCalls, first.summary.totalCalls + 200);
        assert.equal(again.byModel["m-two"]!.p95LatencyMs, latencyBucket(slowMs));
        assert.notEqual(first.byModel["m-two"]!.p95LatencyMs, latencyBucket(slowMs));
      });

    it("pages records newest first with the same filters", async () => {
      const random = seededRandom(99);
      for (let i = 0; i < 15; i++) {
        const { from, to } = randomRange(random);
        const filters = randomFilters(random);
        const { hit } = bruteForce(rows, filters, from, to);
        const order = [...hit].sort(
          (a, b) => b.timestamp.getTime() - a.timestamp.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0),
        );
        const offset = Math.floor(random() * Math.max(1, hit.length));
        const page = await recordPage(opened.db.prisma, filters, { from, to }, { limit: 25, offset });
        assert.deepEqual(
          page.map((r) => r.id),
          order.slice(offset, offset + 25).map((r) => r.id),
        );
      }
    });
  });
}
