import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { context, details, health, ids, model, NOW } from "../test-fixtures.js";
import {
  budgetFilter,
  capabilitiesFilter,
  circuitFilter,
  contextFilter,
  cooldownFilter,
  enabledFilter,
  FILTERS,
} from "./index.js";

describe("filters", () => {
  it("run in the documented order", () => {
    assert.deepEqual(
      FILTERS.map((f) => f.name),
      ["enabled", "capabilities", "context", "budget", "cooldown", "circuit"],
    );
  });

  it("trace one exclusion per dropped model and one summary", () => {
    const models = [model("a", { enabled: false }), model("b"), model("c", { enabled: false })];
    const { trace } = enabledFilter.apply(models, context(models));
    assert.deepEqual(
      trace.map((e) => [e.stage, e.name, e.outcome, e.modelId]),
      [
        ["filter", "enabled", "excluded", "a"],
        ["filter", "enabled", "excluded", "c"],
        ["filter", "enabled", "passed", ""],
      ],
    );
    assert.equal(trace[2]?.reason, "1 of 3 models kept");
    assert.deepEqual(details(trace[2]), { kept: ["b"], excluded: ["a", "c"] });
  });
});

describe("enabled filter", () => {
  it("drops disabled models", () => {
    const models = [model("a", { enabled: false }), model("b")];
    const { kept, trace } = enabledFilter.apply(models, context(models));
    assert.deepEqual(ids(kept), ["b"]);
    assert.equal(trace[0]?.reason, "model is disabled");
  });
});

describe("capabilities filter", () => {
  const tools = model("tools", { capabilities: ["chat", "tools", "json_mode"] });
  const api = model("api", { capabilities: ["functionCalling", "vision"] });
  const plain = model("plain", { capabilities: ["chat"] });
  const unknown = model("unknown", { capabilities: [] });
  const models = [tools, api, plain, unknown];

  it("keeps everything when nothing is required, without notes", () => {
    const { kept, trace } = capabilitiesFilter.apply(models, context(models));
    assert.deepEqual(ids(kept), ["tools", "api", "plain", "unknown"]);
    assert.equal(trace.length, 1);
  });

  it("maps stored aliases (tools, json_mode) to API names", () => {
    const ctx = context(models, { features: { requiredCapabilities: ["functionCalling", "json"] } });
    const { kept, trace } = capabilitiesFilter.apply(models, ctx);
    assert.deepEqual(ids(kept), ["tools", "unknown"]);
    const api = trace.find((e) => e.modelId === "api");
    assert.equal(api?.outcome, "excluded");
    assert.equal(api?.reason, "missing capabilities: json");
    assert.deepEqual(details(api).missing, ["json"]);
    assert.equal(
      trace.find((e) => e.modelId === "plain")?.reason,
      "missing capabilities: functionCalling, json",
    );
  });

  it("passes a model that declares no capability and traces it as not declared", () => {
    const ctx = context(models, { features: { requiredCapabilities: ["vision"] } });
    const { kept, trace } = capabilitiesFilter.apply(models, ctx);
    assert.deepEqual(ids(kept), ["api", "unknown"]);
    const note = trace.find((e) => e.modelId === "unknown");
    assert.equal(note?.outcome, "passed");
    assert.equal(note?.reason, "capabilities not declared");
  });

  it("accepts a request asking in stored names", () => {
    const ctx = context(models, { features: { requiredCapabilities: ["tools"] } });
    assert.deepEqual(ids(capabilitiesFilter.apply(models, ctx).kept), ["tools", "api", "unknown"]);
  });
});

describe("context filter", () => {
  it("fits input plus max_tokens in the window", () => {
    const models = [model("small", { contextWindow: 1000 }), model("big", { contextWindow: 2000 })];
    const ctx = context(models, { features: { estimatedInputTokens: 900, maxTokens: 200 } });
    const { kept, trace } = contextFilter.apply(models, ctx);
    assert.deepEqual(ids(kept), ["big"]);
    assert.equal(trace[0]?.reason, "needs 1100 tokens, context window is 1000");
    assert.deepEqual(details(trace[0]), {
      inputTokens: 900,
      outputTokens: 200,
      totalTokens: 1100,
      contextWindow: 1000,
    });
  });

  it("bounds output by the model's max output without max_tokens, else by nothing", () => {
    const limited = model("limited", { contextWindow: 1000, maxOutputTokens: 200 });
    const unlimited = model("unlimited", { contextWindow: 1000 });
    const ctx = context([limited, unlimited], { features: { estimatedInputTokens: 900 } });
    assert.deepEqual(ids(contextFilter.apply([limited, unlimited], ctx).kept), ["unlimited"]);
  });

  it("keeps models without a declared window, and an exact fit", () => {
    const models = [
      model("none"),
      model("zero", { contextWindow: 0 }),
      model("exact", { contextWindow: 150 }),
    ];
    const ctx = context(models, { features: { estimatedInputTokens: 100, maxTokens: 50 } });
    assert.deepEqual(ids(contextFilter.apply(models, ctx).kept), ["none", "zero", "exact"]);
  });
});

describe("budget filter", () => {
  it("drops models whose budget is exhausted", () => {
    const models = [model("a"), model("b")];
    const { kept, trace } = budgetFilter.apply(models, context(models, { budgetExhausted: new Set(["a"]) }));
    assert.deepEqual(ids(kept), ["b"]);
    assert.equal(trace[0]?.reason, "model budget exhausted");
  });
});

describe("cooldown filter", () => {
  it("drops models cooling down and names the remaining time", () => {
    const models = [model("cooling"), model("over"), model("fresh")];
    const ctx = context(models, {
      health: new Map([
        ["cooling", health({ cooldownUntil: NOW + 1500 })],
        ["over", health({ cooldownUntil: NOW })],
      ]),
    });
    const { kept, trace } = cooldownFilter.apply(models, ctx);
    assert.deepEqual(ids(kept), ["over", "fresh"]);
    assert.equal(trace[0]?.modelId, "cooling");
    assert.equal(trace[0]?.reason, "rate limited: cooling down for 1500 ms");
    assert.equal(details(trace[0]).remainingMs, 1500);
  });
});

describe("circuit filter", () => {
  it("drops open circuits, keeps half_open and closed", () => {
    const models = [model("open"), model("half"), model("closed")];
    const ctx = context(models, {
      health: new Map([
        ["open", health({ circuit: "open", openUntil: NOW + 30_000, errorRate: 0.8, calls: 20 })],
        ["half", health({ circuit: "half_open" })],
      ]),
    });
    const { kept, trace } = circuitFilter.apply(models, ctx);
    assert.deepEqual(ids(kept), ["half", "closed"]);
    assert.equal(trace[0]?.reason, "circuit open for another 30000 ms");
    assert.equal(details(trace[0]).errorRate, 0.8);
  });
});
