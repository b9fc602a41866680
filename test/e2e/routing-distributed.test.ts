import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Bus, createBus } from "@gw/bus";
import { createDatabase, type Database } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { type Child, type FakeUpstream, freePort, startFakeUpstream, waitForHealth } from "@gw/testing";
import OpenAI from "openai";
import { distributedEnv } from "../support/distributed-gateway.js";
import { recordEvents } from "../support/event-recorder.js";
import { startServiceProcess } from "../support/processes.js";
import * as routing from "../support/routing-checks.js";

const env = distributedEnv();

// Routing in distributed mode with two replicas of ingress and of routing (ingress 1 -> routing 1,
// ingress 2 -> routing 2), one Redis: health and cooldowns are shared, so what one replica learns
// (a 429) the other obeys.
describe("routing, distributed mode, two replicas", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-routing-distributed-"));
  const secretKey = randomBytes(32);
  const processes: Child[] = [];
  let database: { url: string; drop(): Promise<void> };
  let db: Database;
  let upstream: FakeUpstream;
  let bus: Bus;
  let stopEvents: () => Promise<void>;
  let gateway: routing.RoutingGateway;
  let secondUrl: string;

  before(async () => {
    upstream = await startFakeUpstream();
    database = await createTestDatabaseUrl(env.DATABASE_URL!);
    db = await createDatabase({ url: database.url });
    await db.migrate();
    const ports = await Promise.all(Array.from({ length: 5 }, () => freePort()));
    const [routing1, routing2, budgetPort, http1, http2] = ports as [number, number, number, number, number];
    const shared = {
      DATABASE_URL: database.url,
      REDIS_URL: env.REDIS_URL!,
      NATS_URL: env.NATS_URL!,
      SERVICE_DATA_DIR: dataDir,
      SHUTDOWN_TIMEOUT_MS: "8000",
      SERVICE_SECRET_KEY: secretKey.toString("base64"),
    };
    const ingress = (name: string, routingPort: number, httpPort: number) =>
      startServiceProcess("ingress", {
        ...shared,
        SERVICE_DATA_DIR: join(dataDir, name),
        ROUTING_GRPC_ADDRESS: `127.0.0.1:${routingPort}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
        PORT: String(httpPort),
        HOST: "127.0.0.1",
      });
    processes.push(
      startServiceProcess("routing", {
        ...shared,
        ROUTING_GRPC_LISTEN: `127.0.0.1:${routing1}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
      }),
      startServiceProcess("routing", {
        ...shared,
        ROUTING_GRPC_LISTEN: `127.0.0.1:${routing2}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
      }),
      startServiceProcess("budget", { ...shared, BUDGET_GRPC_LISTEN: `127.0.0.1:${budgetPort}` }),
      startServiceProcess("usage-writer", shared),
      ingress("ingress-1", routing1, http1),
      ingress("ingress-2", routing2, http2),
    );
    const url = `http://127.0.0.1:${http1}`;
    secondUrl = `http://127.0.0.1:${http2}`;
    await waitForHealth(`${url}/health`, { timeoutMs: 60_000, children: processes });
    await waitForHealth(`${secondUrl}/health`, { timeoutMs: 60_000, children: processes });
    bus = await createBus({ natsUrl: env.NATS_URL!, name: "routing-distributed-test" });
    const recorder = await recordEvents(bus);
    stopEvents = recorder.stop;
    gateway = { url, prisma: db.prisma, secretKey, upstream, events: recorder.events };
  });

  after(async () => {
    await stopEvents?.();
    await bus?.close();
    await Promise.all(processes.map((p) => p.stop()));
    await db?.close();
    await database?.drop();
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("falls back to B when A answers 500, and says so (routing.fallback_used, provider.error)", () =>
    routing.checkFallbackOn500(gateway));
  it("keeps A out for its Retry-After after a 429", () => routing.checkRateLimitCooldown(gateway));
  it("answers 503 no_candidates when every model is filtered out", () => routing.checkNoCandidates(gateway));
  it("cheapest picks the cheaper model for the request", () => routing.checkCheapest(gateway));
  it("llm routes by the routing model's answer and records its call", () => routing.checkLlmPolicy(gateway));
  it("llm falls back to the other policies when the routing model fails", () =>
    routing.checkLlmPolicySurvivesFailure(gateway));

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
