import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "@gw/testing";
import { candidates, context, details, model, plain, project, tracedCandidates } from "../test-fixtures.js";
import { randomPolicy, weightedOrder } from "./random.js";

/** A fake source returning the given draws in turn. */
function draws(...values: number[]): () => number {
  let i = 0;
  return () => values[i++ % values.length]!;
}

describe("weightedOrder", () => {
  const items = [
    { id: "a", weight: 1 },
    { id: "b", weight: 3 },
    { id: "c", weight: 0 },
  ];

  it("picks by cumulative weight, without replacement", () => {
    // Total 4: a covers [0, 1), b covers [1, 4). 0.2 * 4 = 0.8 -> a; then only b has weight.
    assert.deepEqual(weightedOrder(items, draws(0.2, 0.0)).order, ["a", "b", "c"]);
    // 0.5 * 4 = 2 -> b; then total 1: a.
    assert.deepEqual(weightedOrder(items, draws(0.5, 0.99)).order, ["b", "a", "c"]);
  });

  it("never puts a zero weight first while a positive weight remains", () => {
    for (const r of [0, 0.25, 0.5, 0.75, 0.999999])
      assert.notEqual(weightedOrder(items, () => r).order[0], "c");
  });

  it("draws uniformly when only zero weights remain, and needs no draw for the last", () => {
    const zeros = [
      { id: "x", weight: 0 },
      { id: "y", weight: 0 },
    ];
    const result = weightedOrder(zeros, draws(0.7));
    assert.deepEqual(result.order, ["y", "x"]);
    assert.deepEqual(result.draws, [0.7]);
    assert.deepEqual(weightedOrder([{ id: "solo", weight: 0 }], draws(0.5)), { order: ["solo"], draws: [] });
  });

  it("follows the weights over many draws", () => {
    const random = seededRandom(42);
    let bFirst = 0;
    const runs = 20_000;
    for (let i = 0; i < runs; i++) if (weightedOrder(items, random).order[0] === "b") bFirst++;
    assert.ok(Math.abs(bFirst / runs - 0.75) < 0.02, `b first ${bFirst / runs}`);
  });
});

describe("random policy", () => {
  it("scores by drawn position with the project's weights", async () => {
    const models = [model("a"), model("b"), model("c")];
    const ctx = context(models, {
      project: project(models, { routing: { weights: { a: 1, b: 2, c: 0 } } }),
      // Total 3: 0.5 * 3 = 1.5 -> b (covers [1, 3)); then a; c last.
      random: draws(0.5, 0.5),
    });
    const result = await randomPolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(plain(result.scores), { b: 1, a: 0.5, c: 0 });
    assert.equal(result.trace.length, 1);
    const entry = result.trace[0];
    assert.equal(entry?.modelId, "");
    assert.deepEqual(details(entry), {
      draws: [0.5, 0.5],
      candidates: [
        { modelId: "b", score: 1, reason: "drawn at position 1", weight: 2, position: 1 },
        { modelId: "a", score: 0.5, reason: "drawn at position 2", weight: 1, position: 2 },
        { modelId: "c", score: 0, reason: "drawn at position 3", weight: 0, position: 3 },
      ],
    });
  });

  it("defaults missing or invalid weights to 1", async () => {
    const models = [model("a"), model("b")];
    const ctx = context(models, { project: project(models, { routing: { weights: { b: -2 } } }) });
    const result = await randomPolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(
      tracedCandidates(result.trace[0]).map((c) => [c.modelId, c.weight]),
      [
        ["a", 1],
        ["b", 1],
      ],
    );
  });

  it("puts a zero-weight model first when it is the only candidate", async () => {
    const models = [model("a")];
    const ctx = context(models, { project: project(models, { routing: { weights: { a: 0 } } }) });
    assert.deepEqual(plain((await randomPolicy.evaluate(candidates(models), ctx)).scores), { a: 1 });
  });
});
