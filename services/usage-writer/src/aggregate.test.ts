import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bucketStart,
  dedupeById,
  endUserDeltas,
  latencyRollupDeltas,
  rollupDeltas,
  type UsageRow,
} from "./aggregate.js";

function row(overrides: Partial<UsageRow> & { id: string }): UsageRow {
  return {
    timestamp: new Date("2026-11-20T10:15:00.000Z"),
    projectId: "proj_a",
    projectSlug: "a",
    modelId: "m1",
    inputTokens: 10,
    outputTokens: 20,
    cacheTokens: 5,
    totalTokens: 30,
    costMicros: 100n,
    durationMs: 250,
    outcome: "success",
    traceId: "t",
    callType: "completion",
    ...overrides,
  };
}

describe("bucketStart", () => {
  it("floors to the UTC hour and day", () => {
    const at = new Date("2026-03-29T23:59:59.999Z");
    assert.equal(bucketStart(at, "hour").toISOString(), "2026-03-29T23:00:00.000Z");
    assert.equal(bucketStart(at, "day").toISOString(), "2026-03-29T00:00:00.000Z");
    const edge = new Date("2026-03-30T00:00:00.000Z");
    assert.equal(bucketStart(edge, "day").toISOString(), "2026-03-30T00:00:00.000Z");
  });
});

describe("rollupDeltas", () => {
  it("sums each (granularity, bucket, project, model, callType, outcome) with a latency histogram", () => {
    const deltas = rollupDeltas([
      row({ id: "1", durationMs: 250 }),
      row({ id: "2", durationMs: 1234, timestamp: new Date("2026-11-20T10:59:59.999Z"), costMicros: 7 }),
      row({ id: "3", timestamp: new Date("2026-11-20T11:00:00.000Z"), durationMs: 98_765 }),
    ]);
    assert.deepEqual(
      deltas.map((d) => [d.granularity, d.bucketStart.toISOString(), d.calls]),
      [
        ["day", "2026-11-20T00:00:00.000Z", 3],
        ["hour", "2026-11-20T10:00:00.000Z", 2],
        ["hour", "2026-11-20T11:00:00.000Z", 1],
      ],
    );
    const [day, ten] = deltas;
    assert.equal(day!.costMicros, 207n);
    assert.equal(day!.inputTokens, 30);
    assert.equal(day!.outputTokens, 60);
    assert.equal(day!.cacheTokens, 15);
    assert.equal(day!.totalTokens, 90);
    assert.equal(day!.durationMsSum, 250 + 1234 + 98_765);
    assert.deepEqual(day!.latency, { "250": 1, "1230": 1, "98100": 1 });
    assert.deepEqual(ten!.latency, { "250": 1, "1230": 1 });
  });

  it("counts a null cost with a model as unpriced, and a record with no model under modelId ''", () => {
    const deltas = rollupDeltas([
      row({ id: "1", costMicros: null }),
      row({ id: "2", costMicros: null, modelId: null, outcome: "blocked", inputTokens: 0 }),
      row({ id: "3", modelId: undefined, outcome: "blocked", costMicros: undefined }),
    ]).filter((d) => d.granularity === "hour");
    const priced = deltas.find((d) => d.modelId === "m1")!;
    assert.equal(priced.unpricedCalls, 1);
    assert.equal(priced.costMicros, 0n);
    const noModel = deltas.find((d) => d.modelId === "")!;
    assert.equal(noModel.calls, 2);
    assert.equal(noModel.unpricedCalls, 0, "a record refused before routing is not 'unpriced'");
    assert.equal(noModel.outcome, "blocked");
  });

  it("separates projects, models, call types and outcomes; defaults callType to completion", () => {
    const deltas = rollupDeltas([
      row({ id: "1" }),
      row({ id: "2", projectId: "proj_b" }),
      row({ id: "3", modelId: "m2" }),
      row({ id: "4", callType: "routing" }),
      row({ id: "5", outcome: "error" }),
      row({ id: "6", callType: undefined }),
    ]).filter((d) => d.granularity === "day");
    assert.equal(deltas.length, 5);
    assert.equal(
      deltas.find(
        (d) =>
          d.projectId === "proj_a" &&
          d.modelId === "m1" &&
          d.callType === "completion" &&
          d.outcome === "success",
      )!.calls,
      2,
    );
  });

  it("returns keys sorted (the lock order), whatever the input order", () => {
    const rows = ["proj_c", "proj_a", "proj_b"].flatMap((projectId, i) => [
      row({ id: `${i}a`, projectId, timestamp: new Date(`2026-11-2${i}T05:00:00.000Z`) }),
      row({ id: `${i}b`, projectId, modelId: "m0" }),
    ]);
    const keys = (list: UsageRow[]) =>
      rollupDeltas(list).map((d) =>
        [d.granularity, d.bucketStart.toISOString(), d.projectId, d.modelId, d.callType, d.outcome].join("|"),
      );
    const sorted = keys(rows);
    assert.deepEqual(sorted, [...sorted].sort());
    assert.deepEqual(keys([...rows].reverse()), sorted);
  });
});

describe("latencyRollupDeltas", () => {
  it("keeps one histogram per (granularity, bucket, model) across projects, call types and outcomes", () => {
    const deltas = latencyRollupDeltas([
      row({ id: "1", durationMs: 250 }),
      row({ id: "2", projectId: "proj_b", callType: "routing", outcome: "error", durationMs: 251 }),
      row({ id: "3", modelId: null, durationMs: 40, timestamp: new Date("2026-11-20T11:30:00.000Z") }),
      row({ id: "4", modelId: "m0", durationMs: 1999 }),
    ]);
    assert.deepEqual(
      deltas.map((d) => [d.granularity, d.bucketStart.toISOString(), d.modelId, d.latency]),
      [
        ["day", "2026-11-20T00:00:00.000Z", "", { "40": 1 }],
        ["day", "2026-11-20T00:00:00.000Z", "m0", { "1990": 1 }],
        ["day", "2026-11-20T00:00:00.000Z", "m1", { "250": 2 }],
        ["hour", "2026-11-20T10:00:00.000Z", "m0", { "1990": 1 }],
        ["hour", "2026-11-20T10:00:00.000Z", "m1", { "250": 2 }],
        ["hour", "2026-11-20T11:00:00.000Z", "", { "40": 1 }],
      ],
    );
  });
});

describe("endUserDeltas", () => {
  it("keeps first/last seen across out-of-order rows; requests count completions only", () => {
    const [user, ...rest] = endUserDeltas([
      row({ id: "1", endUserId: "u1", timestamp: new Date("2026-11-20T12:00:00.000Z") }),
      row({ id: "2", endUserId: "u1", timestamp: new Date("2026-11-19T08:00:00.000Z"), callType: "routing" }),
      row({ id: "3", endUserId: "u1", timestamp: new Date("2026-11-21T09:00:00.000Z"), costMicros: null }),
      row({ id: "4", endUserId: null }),
    ]);
    assert.equal(rest.length, 0);
    assert.equal(user!.firstSeen.toISOString(), "2026-11-19T08:00:00.000Z");
    assert.equal(user!.lastSeen.toISOString(), "2026-11-21T09:00:00.000Z");
    assert.equal(user!.requests, 2);
    assert.equal(user!.totalTokens, 90, "input + output of every call, routing included");
    assert.equal(user!.totalCostMicros, 200n);
    assert.equal(user!.unpricedCalls, 1);
  });

  it("keys users per project", () => {
    const deltas = endUserDeltas([
      row({ id: "1", endUserId: "u1", projectId: "proj_b" }),
      row({ id: "2", endUserId: "u1", projectId: "proj_a" }),
    ]);
    assert.deepEqual(
      deltas.map((d) => d.projectId),
      ["proj_a", "proj_b"],
    );
  });
});

describe("dedupeById", () => {
  it("keeps the first row of each id", () => {
    const kept = dedupeById([
      row({ id: "1", outcome: "success" }),
      row({ id: "2" }),
      row({ id: "1", outcome: "error" }),
    ]);
    assert.deepEqual(
      kept.map((r) => [r.id, r.outcome]),
      [
        ["1", "success"],
        ["2", "success"],
      ],
    );
  });
});
