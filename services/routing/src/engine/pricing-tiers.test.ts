import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { contextRequestCost, pricesFor, requestCost } from "./pricing-tiers.js";
import { context, model } from "./test-fixtures.js";

const tiered = model("tiered", {
  inputPrice: 0.01,
  outputPrice: 0.03,
  cachePrice: 0.005,
  // Stored out of order on purpose: the greatest fromTokens reached wins, not the last listed.
  pricingTiers: [
    { fromTokens: 10_000_000, inputPrice: 0.002, outputPrice: 0.006 },
    { fromTokens: 1_000_000, inputPrice: 0.005, outputPrice: 0.015, cachePrice: 0.001 },
  ],
});

describe("pricesFor", () => {
  it("uses the base prices below every tier", () => {
    const { prices, tier } = pricesFor(tiered, 999_999);
    assert.equal(tier, null);
    assert.deepEqual(prices, { inputPrice: 0.01, outputPrice: 0.03, cachePrice: 0.005 });
  });

  it("uses the tier with the greatest fromTokens reached", () => {
    assert.equal(pricesFor(tiered, 1_000_000).tier?.fromTokens, 1_000_000);
    assert.equal(pricesFor(tiered, 9_999_999).prices.inputPrice, 0.005);
    assert.equal(pricesFor(tiered, 10_000_000).tier?.fromTokens, 10_000_000);
    assert.equal(pricesFor(tiered, 50_000_000).prices.outputPrice, 0.006);
  });

  it("charges cache at the tier's input price when the tier has no cache price", () => {
    assert.equal(pricesFor(tiered, 10_000_000).prices.cachePrice, undefined);
  });
});

describe("requestCost", () => {
  it("prices input plus the worst-case output at the applicable tier", () => {
    const volumes = new Map([["tiered", 2_000_000]]);
    const cost = requestCost(tiered, { estimatedInputTokens: 1000, maxTokens: 500 }, volumes);
    // 1000 * 0.005 * 1000 + 500 * 0.015 * 1000 micro-USD
    assert.equal(cost.micros, 5000 + 7500);
    assert.equal(cost.tier?.fromTokens, 1_000_000);
    assert.equal(cost.monthlyTokens, 2_000_000);
  });

  it("bounds output like budget reservations (model limit, else the default)", () => {
    const capped = model("capped", { inputPrice: 0, outputPrice: 0.001, maxOutputTokens: 100 });
    assert.equal(requestCost(capped, { estimatedInputTokens: 0, maxTokens: 0 }, new Map()).outputTokens, 100);
    const open = model("open", { inputPrice: 0, outputPrice: 0.001 });
    assert.equal(requestCost(open, { estimatedInputTokens: 0, maxTokens: 0 }, new Map()).outputTokens, 4096);
  });

  it("is null for an unpriced model", () => {
    const unpriced = model("free?", { inputPrice: null, outputPrice: null });
    assert.equal(requestCost(unpriced, { estimatedInputTokens: 10, maxTokens: 10 }, new Map()).micros, null);
  });
});

describe("contextRequestCost", () => {
  it("is requestCost, computed once per model per routing context", () => {
    const ctx = context([tiered], {
      features: { estimatedInputTokens: 1000, maxTokens: 500 },
      monthlyTokens: new Map([["tiered", 2_000_000]]),
    });
    const cost = contextRequestCost(tiered, ctx);
    assert.deepEqual(cost, requestCost(tiered, ctx.features, ctx.monthlyTokens));
    assert.equal(contextRequestCost(tiered, ctx), cost);
    // Another model object, or other features or volumes on the context: computed anew.
    const copy = { ...tiered, pricingTiers: [] };
    assert.notDeepEqual(contextRequestCost(copy, ctx), cost);
    ctx.monthlyTokens = new Map();
    assert.equal(contextRequestCost(tiered, ctx).tier, null);
    ctx.features = { ...ctx.features, maxTokens: 100 };
    assert.equal(contextRequestCost(tiered, ctx).outputTokens, 100);
  });
});
