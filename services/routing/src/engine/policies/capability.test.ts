import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, model, plain } from "../test-fixtures.js";
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
    assert.equal(result.trace.find((e) => e.modelId === "undeclared")?.reason, "capabilities not declared");
  });

  it("scores everyone 1 when the request needs nothing", async () => {
    const result = await capabilityPolicy.evaluate(candidates(models), context(models));
    assert.deepEqual(plain(result.scores), { declared: 1, undeclared: 1, lacking: 1 });
  });
});
