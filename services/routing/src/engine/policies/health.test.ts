import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, details, health, model, plain } from "../test-fixtures.js";
import { HALF_OPEN_SCORE, healthPolicy } from "./health.js";

describe("health policy", () => {
  it("scores 1 - error rate, unknown rate 1, half_open on probation", async () => {
    const models = [model("flaky"), model("new"), model("probation"), model("good"), model("absent")];
    const ctx = context(models, {
      health: new Map([
        ["flaky", health({ errorRate: 0.25, calls: 40 })],
        ["new", health({ errorRate: null, calls: 2 })],
        ["probation", health({ circuit: "half_open", errorRate: 0, calls: 30 })],
        ["good", health({ errorRate: 0, calls: 100 })],
      ]),
    });
    const result = await healthPolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(plain(result.scores), {
      flaky: 0.75,
      new: 1,
      probation: HALF_OPEN_SCORE,
      good: 1,
      absent: 1,
    });
    assert.equal(result.excluded.size, 0);
  });

  it("traces error rate, calls and circuit per candidate", async () => {
    const models = [model("flaky")];
    const ctx = context(models, { health: new Map([["flaky", health({ errorRate: 0.5, calls: 12 })]]) });
    const { trace } = await healthPolicy.evaluate(candidates(models), ctx);
    assert.equal(trace.length, 1);
    const [entry] = trace;
    assert.equal(entry?.name, "health");
    assert.equal(entry?.modelId, "");
    assert.equal(entry?.outcome, "scored");
    assert.deepEqual(details(entry), {
      candidates: [
        {
          modelId: "flaky",
          score: 0.5,
          reason: "error rate 0.5",
          errorRate: 0.5,
          calls: 12,
          circuit: "closed",
        },
      ],
    });
  });
});
