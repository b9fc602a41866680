import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { POLICIES } from "./policies/index.js";
import { decideRoute } from "./route-engine.js";
import {
  context,
  details,
  health,
  ids,
  model,
  project,
  tracedCandidate,
  tracedCandidates,
} from "./test-fixtures.js";
import type { RoutingContext, RoutingPolicy } from "./types.js";

function withPolicies(ctx: RoutingContext, policies: string[]): RoutingContext {
  return { ...ctx, project: { ...ctx.project, policies } };
}

/** A test policy with fixed scores and exclusions. */
function fixed(
  name: string,
  scores: Record<string, number>,
  excluded: Record<string, string> = {},
): RoutingPolicy {
  return {
    name,
    evaluate: () => ({
      scores: new Map(Object.entries(scores)),
      excluded: new Map(Object.entries(excluded)),
      trace: [],
    }),
  };
}

describe("decideRoute", () => {
  it("defaults to the project's order after the filters", async () => {
    const models = [model("a"), model("off", { enabled: false }), model("b"), model("c")];
    const decision = await decideRoute(context(models, { budgetExhausted: new Set(["b"]) }));
    assert.deepEqual(ids(decision.candidates), ["a", "c"]);
    assert.deepEqual(decision.policies, ["order"]);
    const last = decision.trace.at(-1);
    assert.equal(last?.name, "decision");
    assert.equal(last?.outcome, "selected");
    assert.equal(last?.modelId, "a");
    assert.deepEqual(details(last).order, ["a", "c"]);
    assert.deepEqual(details(last).scores, { a: [1], c: [0] });
  });

  it("returns no candidates when the filters leave none, with the trace", async () => {
    const models = [model("a", { enabled: false }), model("b", { capabilities: ["chat"] })];
    const ctx = context(models, { features: { requiredCapabilities: ["vision"] } });
    const decision = await decideRoute(withPolicies(ctx, ["cheapest"]));
    assert.deepEqual(decision.candidates, []);
    assert.deepEqual(decision.policies, ["cheapest"]);
    assert.ok(
      decision.trace.some((e) => e.name === "enabled" && e.modelId === "a" && e.outcome === "excluded"),
    );
    assert.ok(
      decision.trace.some((e) => e.name === "capabilities" && e.modelId === "b" && e.outcome === "excluded"),
    );
    assert.equal(decision.trace.at(-1)?.outcome, "no_candidates");
  });

  it("computes each candidate's worst-case cost with pricing tiers", async () => {
    const tiered = model("tiered", {
      inputPrice: 0.01,
      outputPrice: 0.01,
      pricingTiers: [{ fromTokens: 1000, inputPrice: 0.001, outputPrice: 0.001 }],
    });
    const unpriced = model("unpriced", { inputPrice: null });
    const ctx = context([tiered, unpriced], {
      features: { estimatedInputTokens: 100, maxTokens: 100 },
      monthlyTokens: new Map([["tiered", 5000]]),
    });
    const decision = await decideRoute(ctx);
    assert.deepEqual(
      decision.candidates.map((c) => [c.model.id, c.costEstimateMicros]),
      [
        ["tiered", 200],
        ["unpriced", null],
      ],
    );
  });

  it("orders lexicographically: the first policy decides, the next breaks its ties", async () => {
    const models = [model("a"), model("b"), model("c"), model("d")];
    const policies = {
      first: fixed("first", { a: 0.5, b: 1, c: 0.5, d: 0.5 }),
      second: fixed("second", { a: 0.2, b: 0, c: 0.9 }),
    };
    const decision = await decideRoute(withPolicies(context(models), ["first", "second"]), { policies });
    // b wins on the first policy despite its second score; c beats a on the second; d is unscored there.
    assert.deepEqual(ids(decision.candidates), ["b", "c", "a", "d"]);
    assert.deepEqual(decision.policies, ["first", "second"]);
    assert.deepEqual(details(decision.trace.at(-1)).scores, {
      b: [1, 0],
      c: [0.5, 0.9],
      a: [0.5, 0.2],
      d: [0.5, null],
    });
  });

  it("ranks unscored after scored and breaks full ties by project order", async () => {
    const models = [model("a"), model("b"), model("c"), model("d")];
    const policies = { only: fixed("only", { d: 0.1, c: 0.1 }) };
    const decision = await decideRoute(withPolicies(context(models), ["only"]), { policies });
    assert.deepEqual(ids(decision.candidates), ["c", "d", "a", "b"]);
  });

  it("combines real policies: health first, cheapest breaks ties, unpriced last", async () => {
    const models = [
      model("dear", { inputPrice: 0.01, outputPrice: 0.01 }),
      model("flaky", { inputPrice: 0.001, outputPrice: 0.001 }),
      model("unpriced", { inputPrice: null }),
      model("cheap", { inputPrice: 0.002, outputPrice: 0.002 }),
      model("probation", { inputPrice: 0.0001, outputPrice: 0.0001 }),
    ];
    const ctx = context(models, {
      health: new Map([
        ["flaky", health({ errorRate: 0.4, calls: 50 })],
        ["probation", health({ circuit: "half_open" })],
      ]),
    });
    const decision = await decideRoute(withPolicies(ctx, ["health", "cheapest"]));
    assert.deepEqual(ids(decision.candidates), ["cheap", "dear", "unpriced", "flaky", "probation"]);
  });

  it("applies a policy's exclusions, and later policies see only what is left", async () => {
    const models = [model("a"), model("b"), model("c")];
    let seen: string[] = [];
    const policies = {
      narrow: fixed("narrow", {}, { a: "too slow today" }),
      spy: {
        name: "spy",
        evaluate: (candidates) => {
          seen = ids(candidates);
          return { scores: new Map(), excluded: new Map(), trace: [] };
        },
      } satisfies RoutingPolicy,
    };
    const decision = await decideRoute(withPolicies(context(models), ["narrow", "spy"]), { policies });
    assert.deepEqual(ids(decision.candidates), ["b", "c"]);
    assert.deepEqual(seen, ["b", "c"]);
    const entry = decision.trace.find((e) => e.name === "narrow" && e.outcome === "excluded");
    assert.equal(entry?.modelId, "a");
    assert.equal(entry?.reason, "too slow today");
  });

  it("ignores exclusions that would leave no candidate", async () => {
    const models = [model("a"), model("b")];
    const policies = { all: fixed("all", { b: 1 }, { a: "no", b: "nope", ghost: "not a candidate" }) };
    const decision = await decideRoute(withPolicies(context(models), ["all"]), { policies });
    assert.deepEqual(ids(decision.candidates), ["b", "a"]);
    const entry = decision.trace.find((e) => e.name === "all" && e.outcome === "ignored");
    assert.equal(entry?.reason, "exclusions ignored: would leave no candidate");
    assert.deepEqual(details(entry).excluded, { a: "no", b: "nope" });
  });

  it("ignores unknown and duplicate policy names with a trace entry", async () => {
    const models = [model("a"), model("b")];
    const decision = await decideRoute(
      withPolicies(context(models), ["fastest", "order", "constructor", "order"]),
    );
    assert.deepEqual(decision.policies, ["order"]);
    const ignored = decision.trace.filter((e) => e.outcome === "ignored");
    assert.deepEqual(
      ignored.map((e) => [e.name, e.reason]),
      [
        ["fastest", "unknown policy"],
        ["constructor", "unknown policy"],
        ["order", "duplicate policy: applied once"],
      ],
    );
  });

  it("survives a throwing policy", async () => {
    const models = [model("a"), model("b")];
    const policies = {
      broken: {
        name: "broken",
        evaluate: () => {
          throw new Error("bug");
        },
      },
      order: POLICIES.order!,
    };
    const decision = await decideRoute(withPolicies(context(models), ["broken", "order"]), { policies });
    assert.deepEqual(ids(decision.candidates), ["a", "b"]);
    const failed = decision.trace.find((e) => e.name === "broken");
    assert.equal(failed?.outcome, "failed");
    assert.equal(failed?.reason, "bug");
  });

  it("falls through to the next policy when the routing model times out", async () => {
    const models = [model("a"), model("b")];
    const ctx = context(models, {
      project: project(models, {
        policies: ["llm", "cheapest"],
        routing: { llm: { modelId: "r", timeoutMs: 10 } },
      }),
      callRoutingModel: () => new Promise(() => {}),
    });
    const cheaperB = {
      ...ctx,
      project: { ...ctx.project, models: [models[0]!, { ...models[1]!, inputPrice: 0 }] },
    };
    const decision = await decideRoute(cheaperB);
    assert.deepEqual(ids(decision.candidates), ["b", "a"]);
    const llm = decision.trace.find((e) => e.name === "llm");
    assert.equal(llm?.outcome, "failed");
    assert.ok((llm?.durationMs ?? 0) >= 9, `llm duration ${llm?.durationMs}`);
  });

  it("writes one entry per filter and per policy, however many candidates", async () => {
    const models = Array.from({ length: 30 }, (_, index) => model(`m${index}`));
    const decision = await decideRoute(withPolicies(context(models), ["health", "cheapest", "random"]));
    assert.equal(decision.candidates.length, 30);
    assert.deepEqual(
      decision.trace.map((e) => `${e.stage}:${e.name}:${e.outcome}`),
      [
        "filter:enabled:passed",
        "filter:capabilities:passed",
        "filter:context:passed",
        "filter:budget:passed",
        "filter:cooldown:passed",
        "filter:circuit:passed",
        "policy:health:scored",
        "policy:cheapest:scored",
        "policy:random:scored",
        "policy:decision:selected",
      ],
    );
    for (const entry of decision.trace.slice(6, 9)) assert.equal(tracedCandidates(entry).length, 30);
  });

  it("traces every filter, every policy step with its duration, and the decision", async () => {
    const models = [model("a", { enabled: false }), model("b"), model("c")];
    const ctx = context(models, {
      project: project(models, { policies: ["health", "random", "nope"] }),
      random: () => 0.9,
    });
    const decision = await decideRoute(ctx);
    const filterSummaries = decision.trace.filter((e) => e.stage === "filter" && e.modelId === "");
    assert.deepEqual(
      filterSummaries.map((e) => e.name),
      ["enabled", "capabilities", "context", "budget", "cooldown", "circuit"],
    );
    const scores = details(decision.trace.at(-1)).scores as Record<string, number[]>;
    for (const [index, policy] of ["health", "random"].entries()) {
      // One entry per policy, with its duration.
      const entries = decision.trace.filter((e) => e.stage === "policy" && e.name === policy);
      assert.equal(entries.length, 1, policy);
      const entry = entries[0]!;
      assert.equal(entry.outcome, "scored");
      assert.ok(entry.durationMs >= 0 && Number.isFinite(entry.durationMs));
      // Each candidate is explained by each policy: its score (the one the decision used) and reason.
      for (const id of ["b", "c"]) {
        const traced = tracedCandidate(entry, id);
        assert.equal(typeof traced?.score, "number", `${policy} ${id} score`);
        assert.ok(typeof traced?.reason === "string" && traced.reason.length > 0, `${policy} ${id} reason`);
        assert.equal(scores[id]?.[index], traced?.score, `${policy} ${id} score in the decision`);
      }
      assert.deepEqual(
        tracedCandidates(entry)
          .map((c) => c.modelId)
          .sort(),
        ["b", "c"],
      );
    }
    for (const entry of decision.trace) {
      assert.ok(entry.reason.length > 0, `${entry.name} has a reason`);
      if (entry.detailsJson) JSON.parse(entry.detailsJson);
    }
    const last = decision.trace.at(-1);
    assert.equal(last?.modelId, decision.candidates[0]?.model.id);
    assert.deepEqual(details(last).policies, ["health", "random"]);
    assert.equal(decision.trace.filter((e) => e.name === "decision").length, 1);
  });
});
