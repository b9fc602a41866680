import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, details, model, plain } from "../test-fixtures.js";
import { contextPolicy } from "./context.js";

describe("context policy", () => {
  it("scores by the share of the window left, unknown window 0.5", async () => {
    const models = [
      model("tight", { contextWindow: 10_000 }),
      model("roomy", { contextWindow: 100_000 }),
      model("unknown"),
    ];
    const ctx = context(models, { features: { estimatedInputTokens: 8000, maxTokens: 1000 } });
    const result = await contextPolicy.evaluate(candidates(models), ctx);
    assert.deepEqual(plain(result.scores), { tight: 0.1, roomy: 0.91, unknown: 0.5 });
    assert.equal(result.trace.length, 1);
    assert.deepEqual(details(result.trace[0]), {
      inputTokens: 8000,
      candidates: [
        {
          modelId: "tight",
          score: 0.1,
          reason: "1000 of 10000 tokens left",
          outputTokens: 1000,
          totalTokens: 9000,
          contextWindow: 10_000,
        },
        {
          modelId: "roomy",
          score: 0.91,
          reason: "91000 of 100000 tokens left",
          outputTokens: 1000,
          totalTokens: 9000,
          contextWindow: 100_000,
        },
        {
          modelId: "unknown",
          score: 0.5,
          reason: "context window not declared",
          outputTokens: 1000,
          totalTokens: 9000,
          contextWindow: null,
        },
      ],
    });
  });

  it("never scores below 0 for a request that does not fit", async () => {
    const models = [model("small", { contextWindow: 100 })];
    const ctx = context(models, { features: { estimatedInputTokens: 500 } });
    assert.deepEqual(plain((await contextPolicy.evaluate(candidates(models), ctx)).scores), { small: 0 });
  });
});
