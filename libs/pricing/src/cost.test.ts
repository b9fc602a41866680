import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  costMicros,
  DEFAULT_MAX_OUTPUT_TOKENS,
  microsToUsd,
  usdToMicros,
  worstCaseOutputTokens,
} from "./cost.js";

describe("costMicros", () => {
  it("prices input and output per 1,000 tokens in micro-USD", () => {
    // 1000 input at $0.15/1k = $0.15 = 150000 micro; 500 output at $0.6/1k = $0.30 = 300000 micro
    assert.equal(
      costMicros({ inputPrice: 0.15, outputPrice: 0.6 }, { inputTokens: 1000, outputTokens: 500 }),
      450_000,
    );
  });

  it("charges cached tokens at the cache price", () => {
    const cost = costMicros(
      { inputPrice: 1, outputPrice: 2, cachePrice: 0.1 },
      { inputTokens: 1000, outputTokens: 0, cacheTokens: 400 },
    );
    assert.equal(cost, 600 * 1000 + 400 * 100);
  });

  it("rounds fractions of a micro-USD up, never down", () => {
    // one token at $0.0000375/1k = 0.0375 micro-USD -> 1
    assert.equal(
      costMicros({ inputPrice: 0.0000375, outputPrice: 0 }, { inputTokens: 1, outputTokens: 0 }),
      1,
    );
    assert.equal(
      costMicros({ inputPrice: 0.15, outputPrice: 0.6 }, { inputTokens: 3, outputTokens: 0 }),
      450,
    );
  });

  it("returns null for an unpriced model", () => {
    assert.equal(costMicros({ inputPrice: null, outputPrice: 1 }, { inputTokens: 1, outputTokens: 1 }), null);
  });

  it("converts between USD and micro-USD", () => {
    assert.equal(usdToMicros(12.34), 12_340_000);
    assert.equal(microsToUsd(450_000), 0.45);
  });
});

describe("worstCaseOutputTokens", () => {
  it("takes max_tokens, else the model's limit, else the default", () => {
    assert.equal(worstCaseOutputTokens(100, { maxOutputTokens: 8000 }), 100);
    assert.equal(worstCaseOutputTokens(0, { maxOutputTokens: 8000 }), 8000);
    assert.equal(worstCaseOutputTokens(0, { maxOutputTokens: null }), DEFAULT_MAX_OUTPUT_TOKENS);
  });
});
