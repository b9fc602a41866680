import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { PrismaClient } from "@gw/db";
import { encryptSecret } from "@gw/security";
import { seedProject } from "@gw/service-standalone";
import { type FakeUpstream, type RecordedRequest, waitFor } from "@gw/testing";
import OpenAI from "openai";
import type { RecordedEvent } from "./event-recorder.js";

/**
 * End-to-end routing checks on one fake upstream serving several models, told apart by the
 * upstream model name in the body (`<slug>-a`, `<slug>-b`). Written once, run in both modes.
 */
export interface RoutingGateway {
  url: string;
  prisma: PrismaClient;
  secretKey: Buffer;
  upstream: FakeUpstream;
  events: RecordedEvent[];
}

export interface TwoModelProject {
  slug: string;
  projectId: string;
  token: string;
  a: string;
  b: string;
}

/** A project with models A then B (project order), both on the fake upstream, A dearer than B unless told. */
export async function seedTwoModels(
  gateway: RoutingGateway,
  options: { policies?: string[]; priceA?: number; priceB?: number; routing?: object } = {},
): Promise<TwoModelProject> {
  const slug = `routing-${randomUUID().slice(0, 8)}`;
  const seed = (suffix: string, price: number) =>
    seedProject(gateway.prisma, gateway.secretKey, {
      projectSlug: slug,
      modelId: `${slug}-${suffix}`,
      provider: "openai",
      baseUrl: gateway.upstream.baseUrl,
      upstreamModel: `${slug}-${suffix}-up`,
      apiKey: `sk-${suffix}`,
      inputPrice: price,
      outputPrice: price,
    });
  const first = await seed("a", options.priceA ?? 10);
  await seed("b", options.priceB ?? 1);
  await gateway.prisma.project.update({
    where: { id: first.projectId },
    data: { policies: options.policies ?? [], ...(options.routing ? { routing: options.routing } : {}) },
  });
  return { slug, projectId: first.projectId, token: first.token, a: `${slug}-a`, b: `${slug}-b` };
}

const client = (gateway: RoutingGateway, token: string) =>
  new OpenAI({ apiKey: token, baseURL: `${gateway.url}/v1`, maxRetries: 0, timeout: 20_000 });

const ask = (gateway: RoutingGateway, project: TwoModelProject, text = "hello") =>
  client(gateway, project.token)
    .chat.completions.create(
      { model: "any", messages: [{ role: "user", content: text }] },
      { headers: { "x-service-trace": "1" } },
    )
    .withResponse();

const upstreamModelOf = (request: RecordedRequest) =>
  (request.body as { model?: string } | undefined)?.model ?? "";

/** Per-model behaviour on the shared fake: `a` and `b` answer as told, other projects normally. */
function behave(gateway: RoutingGateway, project: TwoModelProject, a: object, b: object = {}) {
  gateway.upstream.setBehaviour((request) => {
    const model = upstreamModelOf(request);
    if (model === `${project.a}-up`) return a;
    if (model === `${project.b}-up`) return b;
    return {};
  });
}

export async function checkFallbackOn500(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  behave(gateway, project, { status: 500 });
  try {
    const before = gateway.upstream.requests.length;
    const { data, response } = await ask(gateway, project, "fall back please");
    assert.equal(data.choices[0]?.message.content, "Echo: fall back please");
    const tried = gateway.upstream.requests.slice(before).map(upstreamModelOf);
    assert.deepEqual(tried, [`${project.a}-up`, `${project.b}-up`], "A was tried, then B served");
    const event = await waitFor(
      () =>
        gateway.events.find((e) => e.event === "routing.fallback_used" && e.projectId === project.projectId),
      { timeoutMs: 10_000, what: "routing.fallback_used" },
    );
    assert.equal(event.details.modelId, project.b);
    assert.deepEqual(
      (event.details.skipped as { modelId: string }[]).map((s) => s.modelId),
      [project.a],
    );
    const traceId = response.headers.get("x-service-trace-id") ?? "";
    const row = await waitFor(
      () => gateway.prisma.usageRecord.findFirst({ where: { traceId } }).then((r) => r ?? undefined),
      { timeoutMs: 15_000, what: "the usage row" },
    );
    assert.equal(row.modelId, project.b);
    assert.equal(row.outcome, "success");
    const attempts = (
      row.trace as { stage: string; modelId?: string; outcome: string; status?: number }[]
    ).filter((t) => t.stage === "attempt");
    assert.deepEqual(
      attempts.map((a) => [a.modelId, a.outcome, a.status]),
      [
        [project.a, "error", 500],
        [project.b, "success", 200],
      ],
    );
    await waitFor(
      () => gateway.events.find((e) => e.event === "provider.error" && e.details.modelId === project.a),
      { timeoutMs: 10_000, what: "provider.error for A" },
    );
  } finally {
    gateway.upstream.setBehaviour({});
  }
}

export async function checkRateLimitCooldown(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  behave(gateway, project, { status: 429, retryAfterSeconds: 2 });
  try {
    const before = gateway.upstream.requests.length;
    const started = Date.now();
    await ask(gateway, project);
    await waitFor(
      () =>
        gateway.events.find((e) => e.event === "provider.rate_limited" && e.details.modelId === project.a),
      { timeoutMs: 10_000, what: "provider.rate_limited for A" },
    );
    // A is healthy again, but its cooldown holds: nothing reaches it for 2 s.
    gateway.upstream.setBehaviour({});
    while (Date.now() - started < 1700) await ask(gateway, project);
    const duringCooldown = gateway.upstream.requests.slice(before + 1).map(upstreamModelOf);
    assert.ok(duringCooldown.length >= 3, "several requests were made during the cooldown");
    assert.ok(
      !duringCooldown.includes(`${project.a}-up`),
      `A got no request during its cooldown: ${duringCooldown}`,
    );
    // After it, A (first in project order) serves again.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, 2300 - (Date.now() - started))));
    const after = gateway.upstream.requests.length;
    await ask(gateway, project);
    assert.equal(upstreamModelOf(gateway.upstream.requests[after]!), `${project.a}-up`);
  } finally {
    gateway.upstream.setBehaviour({});
  }
}

export async function checkNoCandidates(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  await gateway.prisma.model.updateMany({
    where: { id: { in: [project.a, project.b] } },
    data: { enabled: false },
  });
  const failure = await ask(gateway, project).catch((error: unknown) => error);
  assert.ok(failure instanceof OpenAI.APIError);
  assert.equal(failure.status, 503);
  assert.equal((failure.error as { code?: string }).code, "no_candidates");
  await waitFor(
    () =>
      gateway.events.find((e) => e.event === "routing.no_candidates" && e.projectId === project.projectId),
    { timeoutMs: 10_000, what: "routing.no_candidates" },
  );
}

export async function checkCheapest(gateway: RoutingGateway): Promise<void> {
  // Project order says A first; `cheapest` must pick B, the cheaper one, for this request.
  const project = await seedTwoModels(gateway, { policies: ["cheapest"], priceA: 5, priceB: 0.5 });
  const before = gateway.upstream.requests.length;
  const { response } = await ask(gateway, project, "which is cheaper");
  assert.equal(upstreamModelOf(gateway.upstream.requests[before]!), `${project.b}-up`);
  const traceId = response.headers.get("x-service-trace-id") ?? "";
  const row = await waitFor(
    () => gateway.prisma.usageRecord.findFirst({ where: { traceId } }).then((r) => r ?? undefined),
    { timeoutMs: 15_000, what: "the usage row" },
  );
  const trace = row.trace as { stage: string; name: string }[];
  assert.ok(
    trace.some((t) => t.stage === "policy" && t.name === "cheapest"),
    "the trace shows the cheapest policy",
  );
}

/** A routing model (not assigned to the project) on the fake upstream, answering as `behaviour` says. */
async function seedRouterModel(gateway: RoutingGateway, project: TwoModelProject): Promise<string> {
  const id = `${project.slug}-router`;
  await gateway.prisma.model.create({
    data: {
      id,
      provider: "openai",
      baseUrl: gateway.upstream.baseUrl,
      upstreamModel: `${id}-up`,
      apiKeyEncrypted: encryptSecret("sk-router", gateway.secretKey),
      inputPrice: 0.1,
      outputPrice: 0.1,
      contextWindow: 128_000,
      capabilities: ["chat", "json"],
    },
  });
  await gateway.prisma.project.update({
    where: { id: project.projectId },
    data: { policies: ["llm"], routing: { llm: { modelId: id, timeoutMs: 1500 } } },
  });
  return id;
}

export async function checkLlmPolicy(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  const router = await seedRouterModel(gateway, project);
  // The routing model ranks B first; project order alone would pick A.
  gateway.upstream.setBehaviour((request) =>
    upstreamModelOf(request) === `${router}-up`
      ? { content: JSON.stringify({ ranking: [project.b, project.a] }) }
      : {},
  );
  try {
    const before = gateway.upstream.requests.length;
    const { response } = await ask(gateway, project, "route me by llm");
    const models = gateway.upstream.requests.slice(before).map(upstreamModelOf);
    assert.deepEqual(
      models,
      [`${router}-up`, `${project.b}-up`],
      "the routing model was asked, then B served",
    );
    const routerCall = gateway.upstream.requests[before]!;
    assert.equal(routerCall.headers.authorization, "Bearer sk-router");
    assert.ok(
      JSON.stringify(routerCall.body).includes("route me by llm"),
      "the routing model saw the request",
    );
    const traceId = response.headers.get("x-service-trace-id") ?? "";
    const rows = await waitFor(
      async () => {
        const found = await gateway.prisma.usageRecord.findMany({ where: { traceId } });
        return found.length === 2 ? found : undefined;
      },
      { timeoutMs: 15_000, what: "the completion and routing usage rows" },
    );
    const routing = rows.find((r) => r.callType === "routing");
    const completion = rows.find((r) => r.callType === "completion");
    assert.ok(routing && completion);
    assert.equal(routing.modelId, router);
    assert.equal(routing.projectId, project.projectId);
    assert.equal(routing.tokenId, completion.tokenId);
    assert.ok(routing.inputTokens > 0);
    assert.equal(completion.modelId, project.b);
  } finally {
    gateway.upstream.setBehaviour({});
  }
}

export async function checkLlmPolicySurvivesFailure(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  const router = await seedRouterModel(gateway, project);
  for (const failure of [{ status: 500 }, { latencyMs: 3000 }, { content: "I would pick the first one" }]) {
    gateway.upstream.setBehaviour((request) => (upstreamModelOf(request) === `${router}-up` ? failure : {}));
    const before = gateway.upstream.requests.length;
    const { data, response } = await ask(gateway, project, "still served");
    assert.equal(data.choices[0]?.message.content, "Echo: still served", JSON.stringify(failure));
    const served = gateway.upstream.requests.slice(before).map(upstreamModelOf).at(-1);
    assert.equal(served, `${project.a}-up`, "project order decides when the routing model fails");
    const traceId = response.headers.get("x-service-trace-id") ?? "";
    const row = await waitFor(
      () =>
        gateway.prisma.usageRecord
          .findFirst({ where: { traceId, callType: "completion" } })
          .then((r) => r ?? undefined),
      { timeoutMs: 15_000, what: "the usage row" },
    );
    const llm = (row.trace as { stage: string; name: string; outcome: string }[]).find(
      (t) => t.stage === "policy" && t.name === "llm",
    );
    assert.equal(llm?.outcome, "failed", JSON.stringify(failure));
  }
  gateway.upstream.setBehaviour({});
}

/** The routing model's call counts against the request's budgets like a completion. */
export async function checkRoutingModelCallIsBudgeted(gateway: RoutingGateway): Promise<void> {
  const project = await seedTwoModels(gateway);
  const router = await seedRouterModel(gateway, project);
  await gateway.prisma.project.update({
    where: { id: project.projectId },
    data: {
      budgets: [
        { metric: "calls", limit: 3, windowType: "period", windowSize: "monthly", onExhausted: "block" },
      ],
    },
  });
  gateway.upstream.setBehaviour((request) =>
    upstreamModelOf(request) === `${router}-up`
      ? { content: JSON.stringify({ ranking: [project.b, project.a] }) }
      : {},
  );
  try {
    const before = gateway.upstream.requests.length;
    // Call 1 (routing model) and call 2 (completion) fit; then call 3 (routing model) fits and the
    // completion that would be call 4 is refused.
    await ask(gateway, project, "first");
    const refused = await ask(gateway, project, "second").catch((error: unknown) => error);
    assert.ok(refused instanceof OpenAI.APIError, "the second completion is refused");
    assert.equal(refused.status, 503);
    assert.equal((refused.error as { code?: string }).code, "budget_exceeded");
    assert.deepEqual(gateway.upstream.requests.slice(before).map(upstreamModelOf), [
      `${router}-up`,
      `${project.b}-up`,
      `${router}-up`,
    ]);
  } finally {
    gateway.upstream.setBehaviour({});
  }
}
