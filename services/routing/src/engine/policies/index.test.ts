import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { POLICIES } from "./index.js";

describe("POLICIES", () => {
  it("registers every policy under its own name", () => {
    assert.deepEqual(Object.keys(POLICIES).sort(), [
      "capability",
      "cheapest",
      "context",
      "health",
      "llm",
      "order",
      "performance",
      "random",
    ]);
    for (const [name, policy] of Object.entries(POLICIES)) assert.equal(policy.name, name);
  });
});
