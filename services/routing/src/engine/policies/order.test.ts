import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, model, plain, project, tracedCandidates } from "../test-fixtures.js";
import { orderPolicy } from "./order.js";

describe("order policy", () => {
  it("scores by position in the project's model order", async () => {
    const models = [model("a"), model("b"), model("c")];
    const ctx = context(models);
    // Candidates in another order: the project's order still decides.
    const result = await orderPolicy.evaluate(candidates([models[2]!, models[0]!, models[1]!]), ctx);
    assert.deepEqual(plain(result.scores), { a: 1, b: 0.5, c: 0 });
    assert.equal(result.excluded.size, 0);
    assert.equal(result.trace.length, 1);
    assert.equal(result.trace[0]?.outcome, "scored");
    assert.deepEqual(
      tracedCandidates(result.trace[0]).map((c) => [c.modelId, c.score, c.reason, c.position]),
      [
        ["a", 1, "position 1 in the project's model order", 1],
        ["b", 0.5, "position 2 in the project's model order", 2],
        ["c", 0, "position 3 in the project's model order", 3],
      ],
    );
  });

  it("scores a lone candidate 1", async () => {
    const models = [model("a"), model("b")];
    const ctx = context(models, { project: project(models) });
    assert.deepEqual(plain((await orderPolicy.evaluate(candidates([models[1]!]), ctx)).scores), { b: 1 });
  });
});
