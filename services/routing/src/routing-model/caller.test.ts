import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import type { ModelConfig, ProjectConfig } from "@gw/config-store";
import { costMicros } from "@gw/pricing";
import type { BudgetServiceService, ReserveRequest, SettleRequest } from "@gw/proto";
import type { AsyncClient } from "@gw/rpc";
import { countFakeTokens, type FakeUpstream, startFakeUpstream } from "@gw/testing";
import { Agent } from "undici";
import { model, project } from "../engine/test-fixtures.js";
import type { RouteFeatures } from "../engine/types.js";
import { createRoutingModelCaller, type RoutingModelDeps, type RoutingModelUsage } from "./caller.js";

const RANKING = '{"ranking":["b","ghost","a","b"]}';

let fake: FakeUpstream;
const dispatcher = new Agent({ keepAliveTimeout: 1000 });

before(async () => {
  fake = await startFakeUpstream();
});
after(async () => {
  await fake.close();
  await dispatcher.close();
});
beforeEach(() => {
  fake.requests.length = 0;
  fake.setBehaviour({ content: RANKING });
});

const candidates = [model("a"), model("b"), model("c")];

/** Routing models: one OpenAI-compatible, one Anthropic, both at the fake upstream. */
function routingModels(): Map<string, ModelConfig> {
  const list = [
    model("router-openai", {
      provider: "openai",
      upstreamModel: "gpt-4o-mini",
      baseUrl: fake.baseUrlFor("openai"),
      apiKeyEncrypted: "enc:sk-openai-secret",
      inputPrice: 0.00015,
      outputPrice: 0.0006,
    }),
    model("router-anthropic", {
      provider: "anthropic",
      upstreamModel: "claude-3-5-haiku-latest",
      baseUrl: fake.baseUrlFor("anthropic"),
      apiKeyEncrypted: "enc:sk-ant-secret",
      inputPrice: 0.0008,
      outputPrice: 0.004,
    }),
    model("router-disabled", { enabled: false, baseUrl: fake.baseUrlFor("openai") }),
  ];
  return new Map(list.map((m) => [m.id, m]));
}

interface FakeBudget {
  client: AsyncClient<typeof BudgetServiceService>;
  reserves: ReserveRequest[];
  settles: SettleRequest[];
  releases: string[];
}

function fakeBudget(admit: (request: ReserveRequest) => boolean = () => true): FakeBudget {
  const reserves: ReserveRequest[] = [];
  const settles: SettleRequest[] = [];
  const releases: string[] = [];
  return {
    reserves,
    settles,
    releases,
    client: {
      reserve: async (request) => {
        reserves.push(request);
        const admitted = admit(request);
        return {
          admitted,
          reservationId: request.reservationId,
          blockedScope: admitted ? "" : `model:${request.modelId}`,
          blockedMetric: admitted ? "" : "cost",
          message: "",
          expiresAtMs: 0,
          blockedWindow: "",
          blockedLimit: 0,
        };
      },
      settle: async (request) => {
        settles.push(request);
        return { settled: true };
      },
      release: async (request) => {
        releases.push(request.reservationId);
        return { released: true };
      },
      groupUsage: async () => ({ groups: [] }),
    },
  };
}

function setup(options: { admit?: (request: ReserveRequest) => boolean } = {}) {
  const models = routingModels();
  const budget = fakeBudget(options.admit);
  const usages: RoutingModelUsage[] = [];
  const warnings: Array<{ obj: object; msg: string }> = [];
  const deps: RoutingModelDeps = {
    modelById: async (id) => models.get(id) ?? null,
    decryptApiKey: (stored) => stored.replace(/^enc:/, ""),
    dispatcher,
    budget: budget.client,
    recordUsage: (usage) => usages.push(usage),
    logger: { warn: (obj, msg) => warnings.push({ obj, msg }), debug: () => {} },
  };
  return { call: createRoutingModelCaller(deps), budget, usages, warnings, models };
}

function routedProject(llm: NonNullable<ProjectConfig["routing"]["llm"]>): ProjectConfig {
  return project(candidates, { id: "proj_9", slug: "acme", policies: ["llm"], routing: { llm } });
}

const features: RouteFeatures = {
  estimatedInputTokens: 42,
  requiredCapabilities: [],
  maxTokens: 0,
  conversationId: "",
  promptExcerpt: "Translate this sentence into French",
  tokenId: "tok_7",
  traceId: "trace-xyz",
};

function input(llm: NonNullable<ProjectConfig["routing"]["llm"]>) {
  return { project: routedProject(llm), candidates, features };
}

const live = () => new AbortController().signal;

describe("routing model caller", () => {
  it("returns the ranking in order, unknown ids and duplicates dropped", async () => {
    const { call } = setup();
    const ranking = await call({ ...input({ modelId: "router-openai" }), signal: live() });
    assert.deepEqual(ranking, ["b", "a"]);
  });

  it("reserves the worst case, settles the real usage and records it", async () => {
    const { call, budget, usages, models } = setup();
    await call({ ...input({ modelId: "router-openai" }), signal: live() });
    const router = models.get("router-openai")!;

    assert.equal(budget.reserves.length, 1);
    const reserve = budget.reserves[0]!;
    assert.equal(reserve.reservationId, "trace-xyz-routing-0");
    assert.equal(reserve.projectId, "proj_9");
    assert.equal(reserve.tokenId, "tok_7");
    assert.equal(reserve.modelId, "router-openai");
    assert.equal(reserve.worstCase?.calls, 1);
    assert.equal(reserve.worstCase?.outputTokens, 200);
    assert.ok((reserve.worstCase?.inputTokens ?? 0) > 50, "the routing prompt's input is counted");
    assert.equal(
      reserve.worstCase?.costMicros,
      costMicros(router, { inputTokens: reserve.worstCase?.inputTokens ?? 0, outputTokens: 200 }),
    );

    assert.equal(usages.length, 1);
    const usage = usages[0]!;
    assert.equal(usage.outcome, "success");
    assert.equal(usage.status, 200);
    assert.equal(usage.attempt, 0);
    assert.equal(usage.traceId, "trace-xyz");
    assert.equal(usage.projectId, "proj_9");
    assert.equal(usage.projectSlug, "acme");
    assert.equal(usage.tokenId, "tok_7");
    assert.equal(usage.modelId, "router-openai");
    assert.equal(usage.provider, "openai");
    assert.equal(usage.outputTokens, countFakeTokens(RANKING));
    assert.ok(usage.inputTokens > 0);
    assert.equal(usage.cacheTokens, 0);
    assert.equal(usage.costMicros, costMicros(router, usage));
    assert.ok((usage.costMicros ?? 0) > 0);
    assert.equal(usage.errorMessage, "");
    assert.ok(usage.durationMs >= 0);

    assert.deepEqual(budget.settles, [
      {
        reservationId: "trace-xyz-routing-0",
        actual: {
          calls: 1,
          inputTokens: usage.inputTokens,
          outputTokens: usage.outputTokens,
          costMicros: usage.costMicros,
        },
      },
    ]);
  });

  it("sends the provider's own request format with the model's decrypted key", async () => {
    const { call } = setup();
    await call({ ...input({ modelId: "router-openai" }), signal: live() });
    fake.setBehaviour({ content: RANKING });
    await call({ ...input({ modelId: "router-anthropic" }), signal: live() });

    assert.equal(fake.requests.length, 2);
    const [openai, anthropic] = fake.requests;
    assert.equal(openai?.kind, "openai");
    assert.equal(openai?.path, "/v1/chat/completions");
    assert.equal(openai?.headers.authorization, "Bearer sk-openai-secret");
    const openaiBody = openai?.body as Record<string, unknown>;
    assert.equal(openaiBody.model, "gpt-4o-mini");
    assert.deepEqual(openaiBody.response_format, { type: "json_object" });
    assert.equal(openaiBody.temperature, 0);
    assert.equal(openaiBody.stream, false);
    const messages = openaiBody.messages as Array<{ role: string; content: unknown }>;
    assert.equal(messages[0]?.role, "system");
    assert.match(JSON.stringify(messages), /Translate this sentence into French/);
    assert.match(JSON.stringify(messages), /router of an LLM gateway/);

    assert.equal(anthropic?.kind, "anthropic");
    assert.equal(anthropic?.path, "/v1/messages");
    assert.equal(anthropic?.headers["x-api-key"], "sk-ant-secret");
    assert.ok(anthropic?.headers["anthropic-version"]);
    const anthropicBody = anthropic?.body as Record<string, unknown>;
    assert.equal(anthropicBody.model, "claude-3-5-haiku-latest");
    assert.equal(anthropicBody.max_tokens, 200);
    assert.match(JSON.stringify(anthropicBody.system), /ranking/);
  });

  it("uses the project's prompt in place of the default", async () => {
    const { call } = setup();
    await call({
      ...input({ modelId: "router-openai", prompt: "Prefer model c for French." }),
      signal: live(),
    });
    const body = JSON.stringify(fake.requests[0]?.body);
    assert.match(body, /Prefer model c for French\./);
    assert.doesNotMatch(body, /router of an LLM gateway/);
    assert.match(body, /ranking/);
  });

  it("falls back when the first routing model answers 500, recording both attempts", async () => {
    const { call, budget, usages } = setup();
    fake.setBehaviour((request) => (request.kind === "openai" ? { status: 500 } : { content: RANKING }));
    const ranking = await call({
      ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"] }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["b", "a"]);
    assert.deepEqual(
      fake.requests.map((r) => r.kind),
      ["openai", "anthropic"],
    );
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.attempt, u.outcome, u.status]),
      [
        ["router-openai", 0, "error", 500],
        ["router-anthropic", 1, "success", 200],
      ],
    );
    assert.ok(usages[0]!.errorMessage.length > 0);
    assert.equal(usages[0]!.inputTokens, 0);
    assert.deepEqual(
      budget.reserves.map((r) => r.reservationId),
      ["trace-xyz-routing-0", "trace-xyz-routing-1"],
    );
    // The failed attempt's reservation is released (settled with zeros).
    assert.deepEqual(budget.settles[0], {
      reservationId: "trace-xyz-routing-0",
      actual: { calls: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 },
    });
    assert.equal(budget.settles[1]?.actual?.calls, 1);
  });

  it("records a budget refusal and tries the next routing model", async () => {
    const { call, budget, usages } = setup({ admit: (request) => request.modelId !== "router-openai" });
    const ranking = await call({
      ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"] }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["b", "a"]);
    assert.deepEqual(
      fake.requests.map((r) => r.kind),
      ["anthropic"],
    );
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.attempt, u.outcome]),
      [
        ["router-openai", 0, "budget_exceeded"],
        ["router-anthropic", 1, "success"],
      ],
    );
    assert.match(usages[0]!.errorMessage, /model:router-openai/);
    // Nothing reserved for the refused attempt, so nothing to settle for it.
    assert.deepEqual(
      budget.settles.map((s) => s.reservationId),
      ["trace-xyz-routing-1"],
    );
  });

  it("skips unknown and disabled routing models without a usage record", async () => {
    const { call, usages, budget, warnings } = setup();
    const ranking = await call({
      ...input({ modelId: "ghost", fallbackModelIds: ["router-disabled", "router-openai"] }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["b", "a"]);
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.attempt]),
      [["router-openai", 2]],
    );
    assert.deepEqual(
      budget.reserves.map((r) => r.reservationId),
      ["trace-xyz-routing-2"],
    );
    assert.deepEqual(
      warnings.map((w) => (w.obj as { reason?: string }).reason),
      ["unknown model", "model is disabled"],
    );
  });

  it("aborts on the signal: a quick error, the reservation settled with zeros, no fallback", async () => {
    const { call, budget, usages } = setup();
    fake.setBehaviour({ latencyMs: 1500, content: RANKING });
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("routing model timed out after 100 ms")), 100);
    const started = performance.now();
    await assert.rejects(
      call({
        ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"] }),
        signal: controller.signal,
      }),
      (error: Error) => {
        assert.match(error.message, /router-openai: routing model timed out after 100 ms/);
        assert.match(error.message, /router-anthropic: not tried/);
        return true;
      },
    );
    clearTimeout(timer);
    assert.ok(performance.now() - started < 1000, "the call stops at the abort");
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.outcome, u.status, u.inputTokens, u.outputTokens]),
      [["router-openai", "timeout", 504, 0, 0]],
    );
    assert.deepEqual(budget.settles, [
      {
        reservationId: "trace-xyz-routing-0",
        actual: { calls: 0, inputTokens: 0, outputTokens: 0, costMicros: 0 },
      },
    ]);
    assert.equal(fake.requests.length, 1);
  });

  it("times out a slow routing model at routing.llm.timeoutMs and tries the next", async () => {
    const { call, usages, budget } = setup();
    fake.setBehaviour((request) =>
      request.kind === "openai" ? { latencyMs: 1000, content: RANKING } : { content: RANKING },
    );
    const ranking = await call({
      ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"], timeoutMs: 100 }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["b", "a"]);
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.outcome, u.status]),
      [
        ["router-openai", "timeout", 504],
        ["router-anthropic", "success", 200],
      ],
    );
    assert.match(usages[0]!.errorMessage, /within 100 ms/);
    assert.equal(budget.settles[0]?.actual?.calls, 0);
  });

  it("parses fenced and prose answers from the upstream", async () => {
    const { call } = setup();
    fake.setBehaviour({ content: 'Sure!\n```json\n{"ranking": ["c", "a"]}\n```' });
    assert.deepEqual(await call({ ...input({ modelId: "router-openai" }), signal: live() }), ["c", "a"]);
    fake.setBehaviour({ content: 'My ranking: {"ranking": ["a", "c", "b"]} (cheapest first).' });
    assert.deepEqual(await call({ ...input({ modelId: "router-anthropic" }), signal: live() }), [
      "a",
      "c",
      "b",
    ]);
  });

  it("records an unreadable answer with its billed tokens and tries the next model", async () => {
    const { call, usages, budget } = setup();
    fake.setBehaviour((request) =>
      request.kind === "openai" ? { content: "I cannot decide." } : { content: '["c"]' },
    );
    const ranking = await call({
      ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"] }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["c"]);
    const first = usages[0]!;
    assert.equal(first.outcome, "error");
    assert.match(first.errorMessage, /no JSON ranking/);
    assert.equal(first.outputTokens, countFakeTokens("I cannot decide."));
    assert.ok(first.inputTokens > 0);
    // The call happened: it is billed, not released.
    assert.equal(budget.settles[0]?.actual?.calls, 1);
    assert.equal(budget.settles[0]?.actual?.outputTokens, first.outputTokens);
  });

  it("throws naming each failure when no routing model answers, never quoting the API key", async () => {
    const { call, usages, warnings } = setup();
    fake.setBehaviour((request) =>
      request.kind === "openai"
        ? { status: 401, errorMessage: "Incorrect API key provided: sk-openai-secret" }
        : { status: 503 },
    );
    await assert.rejects(
      call({
        ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic", "ghost"] }),
        signal: live(),
      }),
      (error: Error) => {
        assert.match(error.message, /^no routing model answered: /);
        assert.match(error.message, /router-openai: .*\[redacted\]/);
        assert.match(error.message, /router-anthropic: /);
        assert.match(error.message, /ghost: unknown model/);
        assert.doesNotMatch(error.message, /sk-openai-secret|sk-ant-secret/);
        return true;
      },
    );
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.outcome, u.status]),
      [
        ["router-openai", "error", 401],
        ["router-anthropic", "error", 503],
      ],
    );
    const logged = JSON.stringify({ usages, warnings });
    assert.doesNotMatch(logged, /sk-openai-secret|sk-ant-secret/);
  });

  it("records a network failure and tries the next model", async () => {
    const { call, usages, models } = setup();
    models.set("router-down", model("router-down", { baseUrl: "http://127.0.0.1:1/v1" }));
    const ranking = await call({
      ...input({ modelId: "router-down", fallbackModelIds: ["router-openai"] }),
      signal: live(),
    });
    assert.deepEqual(ranking, ["b", "a"]);
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.outcome, u.status]),
      [
        ["router-down", "error", 502],
        ["router-openai", "success", 200],
      ],
    );
    assert.match(usages[0]!.errorMessage, /upstream unreachable/);
  });

  it("stops at a budget service failure (fail closed) and records it", async () => {
    const { call, usages, budget } = setup();
    budget.client.reserve = async () => {
      throw new Error("connection refused");
    };
    await assert.rejects(
      call({
        ...input({ modelId: "router-openai", fallbackModelIds: ["router-anthropic"] }),
        signal: live(),
      }),
      /router-openai: budget service unavailable: connection refused/,
    );
    assert.equal(fake.requests.length, 0);
    assert.deepEqual(
      usages.map((u) => [u.modelId, u.outcome]),
      [["router-openai", "error"]],
    );
  });
});
