import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, details, model, plain, tracedCandidates } from "../test-fixtures.js";
import { capabilityPolicy } from "./capability.js";

describe("capability policy", () => {
  const models = [
    model("declared", { capabilities: ["tools", "vision"] }),
    model("undeclared"),
    model("lacking", { capabilities: ["chat"] }),
  ];

  it("prefers declared support (1) over undeclared (0.5)", async () => {
    const ctx = context(models, { features: { requiredCapabilities: ["functionCalling"] } });
    const result = await capabilityPolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(plain(result.scores), { declared: 1, undeclared: 0.5, lacking: 0 });
    // One entry for the policy: the required capabilities once, then every candidate.
    assert.equal(result.trace.length, 1);
    assert.deepEqual(details(result.trace[0]).required, ["functionCalling"]);
    assert.deepEqual(tracedCandidates(result.trace[0]), [
      {
        modelId: "declared",
        score: 1,
        reason: "declares every required capability",
        capabilities: ["tools", "vision"],
      },
      { modelId: "undeclared", score: 0.5, reason: "capabilities not declared", capabilities: [] },
      {
        modelId: "lacking",
        score: 0,
        reason: "missing capabilities: functionCalling",
        capabilities: ["chat"],
      },
    ]);
  });

  it("scores everyone 1 when the request needs nothing", async () => {
    const result = await capabilityPolicy.evaluate(candidates(models), context(models));
    assert.deepEqual(plain(result.scores), { declared: 1, undeclared: 1, lacking: 1 });
  });
});
