import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, model, plain, project } from "../test-fixtures.js";
import { orderPolicy } from "./order.js";

describe("order policy", () => {
  it("scores by position in the project's model order", async () => {
    const models = [model("a"), model("b"), model("c")];
    const ctx = context(models);
    // Candidates in another order: the project's order still decides.
    const result = await orderPolicy.evaluate(candidates([models[2]!, models[0]!, models[1]!]), ctx);
    assert.deepEqual(plain(result.scores), { a: 1, b: 0.5, c: 0 });
    assert.equal(result.excluded.size, 0);
    assert.deepEqual(
      result.trace.map((e) => [e.modelId, e.outcome]),
      [
        ["a", "scored"],
        ["b", "scored"],
        ["c", "scored"],
      ],
    );
  });

  it("scores a lone candidate 1", async () => {
    const models = [model("a"), model("b")];
    const ctx = context(models, { project: project(models) });
    assert.deepEqual(plain((await orderPolicy.evaluate(candidates([models[1]!]), ctx)).scores), { b: 1 });
  });
});
