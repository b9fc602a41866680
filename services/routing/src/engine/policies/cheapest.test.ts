import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, details, model, plain, tracedCandidate } from "../test-fixtures.js";
import { cheapestPolicy } from "./cheapest.js";

const features = { estimatedInputTokens: 1000, maxTokens: 1000 };

describe("cheapest policy", () => {
  it("scores cheapest 1, most expensive 0, linear between", async () => {
    // Costs: 2000, 4000, 6000 micro-USD.
    const models = [
      model("mid", { inputPrice: 0.002, outputPrice: 0.002 }),
      model("cheap", { inputPrice: 0.001, outputPrice: 0.001 }),
      model("dear", { inputPrice: 0.003, outputPrice: 0.003 }),
    ];
    const result = await cheapestPolicy.evaluate(candidates(models), context(models, { features }));
    assert.deepEqual(plain(result.scores), { mid: 0.5, cheap: 1, dear: 0 });
    assert.equal(result.trace.length, 1);
    assert.equal(result.trace[0]?.outcome, "scored");
    assert.equal(details(result.trace[0]).inputTokens, 1000);
    assert.deepEqual(tracedCandidate(result.trace[0], "mid"), {
      modelId: "mid",
      score: 0.5,
      reason: "worst case 4000 micro-USD at base prices",
      costMicros: 4000,
      tier: "base",
      monthlyTokens: 0,
      outputTokens: 1000,
    });
    assert.equal(tracedCandidate(result.trace[0], "cheap")?.score, 1);
    assert.equal(tracedCandidate(result.trace[0], "dear")?.score, 0);
  });

  it("lets a volume tier change the winner", async () => {
    const list = model("list", { inputPrice: 0.002, outputPrice: 0.002 });
    const volume = model("volume", {
      inputPrice: 0.003,
      outputPrice: 0.003,
      pricingTiers: [{ fromTokens: 5_000_000, inputPrice: 0.001, outputPrice: 0.001 }],
    });
    const models = [list, volume];
    const before = await cheapestPolicy.evaluate(candidates(models), context(models, { features }));
    assert.deepEqual(plain(before.scores), { list: 1, volume: 0 });

    const monthlyTokens = new Map([["volume", 6_000_000]]);
    const after = await cheapestPolicy.evaluate(
      candidates(models),
      context(models, { features, monthlyTokens }),
    );
    assert.deepEqual(plain(after.scores), { list: 0, volume: 1 });
    const entry = tracedCandidate(after.trace[0], "volume");
    assert.deepEqual(entry?.tier, { fromTokens: 5_000_000 });
    assert.equal(entry?.costMicros, 2000);
    assert.equal(entry?.monthlyTokens, 6_000_000);
    assert.equal(entry?.score, 1);
    assert.equal(entry?.reason, "worst case 2000 micro-USD at tier from 5000000 tokens");
  });

  it("gives unpriced models no score", async () => {
    const models = [model("unpriced", { inputPrice: null }), model("priced")];
    const result = await cheapestPolicy.evaluate(candidates(models), context(models, { features }));
    assert.deepEqual(plain(result.scores), { priced: 1 });
    const entry = tracedCandidate(result.trace[0], "unpriced");
    assert.equal(entry?.score, null);
    assert.equal(entry?.reason, "unpriced: ranks after priced models");
    assert.equal(entry?.costMicros, null);
    const none = await cheapestPolicy.evaluate(candidates([models[0]!]), context(models, { features }));
    assert.equal(none.trace[0]?.outcome, "unscored");
  });

  it("scores equal costs all 1", async () => {
    const models = [model("a"), model("b")];
    const result = await cheapestPolicy.evaluate(candidates(models), context(models, { features }));
    assert.deepEqual(plain(result.scores), { a: 1, b: 1 });
  });
});
