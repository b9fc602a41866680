import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Bus, createBus } from "@gw/bus";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import OpenAI from "openai";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";
import { recordEvents } from "../support/event-recorder.js";
import * as routing from "../support/routing-checks.js";

const env = distributedEnv();

// Routing in distributed mode with two replicas (ingress i -> routing i -> budget i), one Redis:
// health and cooldowns are shared, so what one replica learns (a 429) the other obeys.
describe("routing, distributed mode, two replicas", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let upstream: FakeUpstream;
  let services: DistributedGateway;
  let bus: Bus;
  let stopEvents: () => Promise<void>;
  let gateway: routing.RoutingGateway;
  let secondUrl: string;

  before(async () => {
    upstream = await startFakeUpstream();
    services = await startDistributedGateway(async () => {}, { replicas: 2 });
    secondUrl = services.urls[1]!;
    bus = await createBus({
      natsUrl: env.NATS_URL!,
      namespace: services.busNamespace,
      name: "routing-distributed-test",
    });
    const recorder = await recordEvents(bus);
    stopEvents = recorder.stop;
    gateway = {
      url: services.url,
      prisma: services.db.prisma,
      secretKey: services.secretKey,
      upstream,
      events: recorder.events,
    };
  });

  after(async () => {
    await stopEvents?.();
    await bus?.close();
    await services?.stop();
    await upstream?.close();
  });

  it("falls back to B when A answers 500, and says so (routing.fallback_used, provider.error)", () =>
    routing.checkFallbackOn500(gateway));
  it("keeps A out for its Retry-After after a 429", () => routing.checkRateLimitCooldown(gateway));
  it("answers 503 no_candidates when every model is filtered out", () => routing.checkNoCandidates(gateway));
  it("cheapest picks the cheaper model for the request", () => routing.checkCheapest(gateway));
  it("llm routes by the routing model's answer and records its call", () => routing.checkLlmPolicy(gateway));
  it("llm falls back to the other policies when the routing model fails", () =>
    routing.checkLlmPolicySurvivesFailure(gateway));
  it("the routing model's call counts against the project's budget", () =>
    routing.checkRoutingModelCallIsBudgeted(gateway));

  it("shares a cooldown learnt through one ingress with the other", async () => {
    const project = await routing.seedTwoModels(gateway);
    const upstreamModel = (i: number) =>
      (upstream.requests[i]?.body as { model?: string } | undefined)?.model;
    upstream.setBehaviour((request) =>
      (request.body as { model?: string }).model === `${project.a}-up`
        ? { status: 429, retryAfterSeconds: 3 }
        : {},
    );
    try {
      const first = new OpenAI({ apiKey: project.token, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
      const second = new OpenAI({ apiKey: project.token, baseURL: `${secondUrl}/v1`, maxRetries: 0 });
      const started = Date.now();
      const before = upstream.requests.length;
      await first.chat.completions.create({ model: "m", messages: [{ role: "user", content: "one" }] });
      assert.equal(upstreamModel(before), `${project.a}-up`, "ingress 1 met the 429 on A");
      upstream.setBehaviour({});
      const viaSecond = upstream.requests.length;
      while (Date.now() - started < 2500)
        await second.chat.completions.create({ model: "m", messages: [{ role: "user", content: "two" }] });
      const models = upstream.requests.slice(viaSecond).map((r) => (r.body as { model?: string }).model);
      assert.ok(models.length >= 3);
      assert.ok(
        !models.includes(`${project.a}-up`),
        `ingress 2 sent nothing to A during the cooldown: ${models}`,
      );
    } finally {
      upstream.setBehaviour({});
    }
  });
});
