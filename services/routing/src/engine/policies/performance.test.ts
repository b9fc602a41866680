import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, health, model, plain, tracedCandidate } from "../test-fixtures.js";
import { performancePolicy } from "./performance.js";

describe("performance policy", () => {
  it("scores fastest 1, slowest 0, unknown 0.5", async () => {
    const models = [model("slow"), model("fast"), model("mid"), model("unknown")];
    const ctx = context(models, {
      health: new Map([
        ["slow", health({ latencyMs: 900 })],
        ["fast", health({ latencyMs: 100 })],
        ["mid", health({ latencyMs: 300 })],
      ]),
    });
    const result = await performancePolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(plain(result.scores), { slow: 0, fast: 1, mid: 0.75, unknown: 0.5 });
    assert.equal(result.trace.length, 1);
    assert.deepEqual(tracedCandidate(result.trace[0], "mid"), {
      modelId: "mid",
      score: 0.75,
      reason: "mean latency 300 ms",
      latencyMs: 300,
    });
    assert.deepEqual(tracedCandidate(result.trace[0], "unknown"), {
      modelId: "unknown",
      score: 0.5,
      reason: "no latency data",
      latencyMs: null,
    });
  });

  it("scores a single measured model 1", async () => {
    const models = [model("only"), model("unknown")];
    const ctx = context(models, { health: new Map([["only", health({ latencyMs: 500 })]]) });
    assert.deepEqual(plain((await performancePolicy.evaluate(candidates(models), ctx)).scores), {
      only: 1,
      unknown: 0.5,
    });
  });
});
