import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { canonicalCapability, matchCapabilities } from "./capabilities.js";

describe("matchCapabilities", () => {
  it("maps aliases on both sides and lists each missing name once, in the order required", () => {
    assert.equal(canonicalCapability("tools"), "functionCalling");
    assert.deepEqual(matchCapabilities(["chat", "tools"], ["functionCalling", "tools"]), {
      declared: true,
      missing: [],
    });
    assert.deepEqual(
      matchCapabilities(["functionCalling"], ["vision", "json_mode", "vision", "json", "tools"]),
      {
        declared: true,
        missing: ["vision", "json"],
      },
    );
  });

  it("calls a model without capabilities undeclared, not lacking", () => {
    assert.deepEqual(matchCapabilities([], ["vision"]), { declared: false, missing: [] });
    assert.deepEqual(matchCapabilities(["chat"], []), { declared: true, missing: [] });
  });
});
