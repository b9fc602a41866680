import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { candidates, context, details, model, plain, project, tracedCandidates } from "../test-fixtures.js";
import type { RoutingModelCall } from "../types.js";
import { llmPolicy } from "./llm.js";

const models = [model("a"), model("b"), model("c")];

function llmContext(call: RoutingModelCall | undefined, timeoutMs?: number) {
  return context(models, {
    project: project(models, { routing: { llm: { modelId: "router", timeoutMs } } }),
    callRoutingModel: call,
    features: { promptExcerpt: "summarise this" },
  });
}

describe("llm policy", () => {
  it("scores by the rank the routing model gives", async () => {
    let seen: Parameters<RoutingModelCall>[0] | undefined;
    const call: RoutingModelCall = async (input) => {
      seen = input;
      return ["c", "a", "b"];
    };
    const result = await llmPolicy.evaluate(candidates(models), llmContext(call));
    assert.deepEqual(plain(result.scores), { c: 1, a: 0.5, b: 0 });
    assert.deepEqual(
      seen?.candidates.map((m) => m.id),
      ["a", "b", "c"],
    );
    assert.equal(seen?.features.promptExcerpt, "summarise this");
    assert.equal(seen?.signal.aborted, false);
    assert.equal(result.trace[0]?.outcome, "scored");
    assert.equal(details(result.trace[0]).routingModel, "router");
  });

  it("ignores unknown ids and leaves unnamed candidates unscored", async () => {
    const call: RoutingModelCall = async () => ["ghost", "b", "b", "a"];
    const result = await llmPolicy.evaluate(candidates(models), llmContext(call));
    assert.deepEqual(plain(result.scores), { b: 1, a: 0 });
    assert.deepEqual(details(result.trace[0]).unknownIds, ["ghost"]);
    assert.equal(result.trace.length, 1);
    assert.deepEqual(tracedCandidates(result.trace[0]), [
      { modelId: "a", score: 0, reason: "ranked 2 by the routing model", rank: 2 },
      { modelId: "b", score: 1, reason: "ranked 1 by the routing model", rank: 1 },
      { modelId: "c", score: null, reason: "not named by the routing model" },
    ]);
  });

  it("fails softly when the answer names no candidate or is not a list", async () => {
    const none = await llmPolicy.evaluate(
      candidates(models),
      llmContext(async () => ["ghost"]),
    );
    assert.equal(none.scores.size, 0);
    assert.equal(none.trace[0]?.outcome, "failed");
    const junk = await llmPolicy.evaluate(
      candidates(models),
      llmContext((async () => "a") as unknown as RoutingModelCall),
    );
    assert.equal(junk.scores.size, 0);
    assert.equal(junk.trace[0]?.outcome, "failed");
  });

  it("is not configured without a routing model or without a caller", async () => {
    const noCaller = await llmPolicy.evaluate(candidates(models), llmContext(undefined));
    assert.equal(noCaller.scores.size, 0);
    assert.equal(noCaller.trace[0]?.reason, "not configured");
    const noConfig = await llmPolicy.evaluate(
      candidates(models),
      context(models, { callRoutingModel: async () => ["a"] }),
    );
    assert.equal(noConfig.scores.size, 0);
    assert.equal(noConfig.trace[0]?.reason, "not configured");
  });

  it("aborts the call after the timeout and scores nothing", async () => {
    let signal: AbortSignal | undefined;
    const call: RoutingModelCall = (input) => {
      signal = input.signal;
      return new Promise((_, reject) =>
        input.signal.addEventListener("abort", () => reject(input.signal.reason)),
      );
    };
    const result = await llmPolicy.evaluate(candidates(models), llmContext(call, 20));
    assert.equal(signal?.aborted, true);
    assert.equal(result.scores.size, 0);
    assert.equal(result.trace[0]?.outcome, "failed");
    assert.equal(result.trace[0]?.reason, "routing model timed out after 20 ms");
    assert.equal(details(result.trace[0]).error, "timeout");
  });

  it("stops waiting at the timeout even when the call ignores its signal", async () => {
    const started = Date.now();
    const result = await llmPolicy.evaluate(
      candidates(models),
      llmContext(() => new Promise(() => {}), 20),
    );
    assert.ok(Date.now() - started < 1000);
    assert.equal(details(result.trace[0]).error, "timeout");
  });

  it("never throws on a failing call, async or sync", async () => {
    const rejecting = await llmPolicy.evaluate(
      candidates(models),
      llmContext(async () => {
        throw new Error("upstream 500");
      }),
    );
    assert.equal(rejecting.trace[0]?.outcome, "failed");
    assert.equal(rejecting.trace[0]?.reason, "upstream 500");
    assert.equal(details(rejecting.trace[0]).error, "error");
    const throwing = await llmPolicy.evaluate(
      candidates(models),
      llmContext(() => {
        throw new Error("boom");
      }),
    );
    assert.equal(throwing.trace[0]?.reason, "boom");
  });
});
