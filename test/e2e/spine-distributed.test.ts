import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createDatabase, type Database } from "@gw/db";
import { createTestDatabaseUrl } from "@gw/db/testing";
import { seedProject } from "@gw/service-standalone";
import {
  type Child,
  type FakeUpstream,
  freePort,
  startFakeUpstream,
  waitFor,
  waitForHealth,
} from "@gw/testing";
import OpenAI from "openai";
import { deleteBusNamespace, testBusNamespace } from "../support/bus-namespace.js";
import { startServiceProcess } from "../support/processes.js";
import {
  checkChatCompletionRecorded,
  checkHealth,
  checkRefusals,
  checkStreamingRecorded,
  checkUpstreamFailureRecorded,
  type SpineTarget,
  sdk,
} from "../support/spine-checks.js";

const { DATABASE_URL, REDIS_URL, NATS_URL } = process.env;
const missing = Object.entries({ DATABASE_URL, REDIS_URL, NATS_URL })
  .filter(([, value]) => !value)
  .map(([name]) => name);

// Distributed mode: ingress, routing, budget and usage-writer as separate processes, gRPC over TCP
// between them, NATS JetStream, Redis and PostgreSQL. The same checks as the standalone suite.
describe("spine, distributed mode", {
  skip: missing.length > 0 ? `needs ${missing.join(", ")}` : false,
}, () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-distributed-"));
  const secretKey = randomBytes(32);
  const busNamespace = testBusNamespace();
  const processes: Child[] = [];
  let routingEnv: Record<string, string>;
  const startRouting = () => startServiceProcess("routing", routingEnv);
  let database: { url: string; drop(): Promise<void> };
  let db: Database;
  let upstream: FakeUpstream;
  let target: SpineTarget;

  before(async () => {
    upstream = await startFakeUpstream();
    database = await createTestDatabaseUrl(DATABASE_URL!);
    db = await createDatabase({ url: database.url });
    await db.migrate();
    const seeded = await seedProject(db.prisma, secretKey, {
      projectSlug: "spine",
      modelId: "fake-model",
      provider: "custom",
      baseUrl: upstream.baseUrl,
      upstreamModel: "gpt-fake-upstream",
      apiKey: "sk-upstream-secret",
    });
    const [routingPort, budgetPort, httpPort] = [await freePort(), await freePort(), await freePort()];
    const shared = {
      DATABASE_URL: database.url,
      REDIS_URL: REDIS_URL!,
      NATS_URL: NATS_URL!,
      SERVICE_DATA_DIR: dataDir,
      SHUTDOWN_TIMEOUT_MS: "8000",
      BUS_NAMESPACE: busNamespace,
    };
    routingEnv = {
      ...shared,
      ROUTING_GRPC_LISTEN: `127.0.0.1:${routingPort}`,
      BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
    };
    processes.push(
      startRouting(),
      startServiceProcess("budget", { ...shared, BUDGET_GRPC_LISTEN: `127.0.0.1:${budgetPort}` }),
      startServiceProcess("usage-writer", shared),
      startServiceProcess("ingress", {
        ...shared,
        SERVICE_SECRET_KEY: secretKey.toString("base64"),
        ROUTING_GRPC_ADDRESS: `127.0.0.1:${routingPort}`,
        BUDGET_GRPC_ADDRESS: `127.0.0.1:${budgetPort}`,
        PORT: String(httpPort),
        HOST: "127.0.0.1",
      }),
    );
    const url = `http://127.0.0.1:${httpPort}`;
    // Fails early, with every service's output, when one of them exits during startup.
    await waitForHealth(`${url}/health`, { timeoutMs: 60_000, children: processes });
    // Ingress is live before routing and budget listen: wait until it can reach them.
    await waitForHealth(`${url}/health/ready`, { timeoutMs: 60_000, children: processes });
    target = {
      url,
      token: seeded.token,
      prisma: db.prisma,
      upstream,
      upstreamKey: "sk-upstream-secret",
      upstreamModel: "gpt-fake-upstream",
    };
  });

  after(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    await db?.close();
    await database?.drop();
    await deleteBusNamespace(NATS_URL!, busNamespace).catch(() => {});
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /health", () => checkHealth(target));
  it("serves a chat completion and records its usage row", () => checkChatCompletionRecorded(target));
  it("streams and records the stream's usage", () => checkStreamingRecorded(target));
  it("refuses bad tokens and bad bodies in the envelope", () => checkRefusals(target));
  it("records upstream failures", () => checkUpstreamFailureRecorded(target));

  it("refuses with 503 routing_unavailable while routing is down, and recovers when it is back", async () => {
    const index = processes.findIndex((p) => p.name === "routing");
    assert.equal(await processes[index]!.stop(), 0);
    const failure = await sdk(target)
      .chat.completions.create({ model: "x", messages: [{ role: "user", content: "anyone?" }] })
      .catch((error: unknown) => error);
    assert.ok(failure instanceof OpenAI.APIError);
    assert.equal(failure.status, 503);
    assert.equal((failure.error as { code?: string }).code, "routing_unavailable");
    // The readiness probe says so, so an orchestrator takes this ingress out of rotation.
    const notReady = await fetch(`${target.url}/health/ready`);
    assert.equal(notReady.status, 503);
    assert.deepEqual(await notReady.json(), { status: "not_ready", waitingFor: ["routing"] });
    processes[index] = startRouting();
    // The gRPC channel reconnects with backoff (at most 1 s): ready again, and requests succeed.
    await waitFor(async () => (await fetch(`${target.url}/health/ready`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 100,
      what: "/health/ready after routing restarted",
    });
    await waitFor(
      () =>
        sdk(target)
          .chat.completions.create({ model: "x", messages: [{ role: "user", content: "back?" }] })
          .then(() => true)
          .catch(() => false),
      { timeoutMs: 30_000, intervalMs: 250, what: "a successful request after routing restarted" },
    );
  });

  it("shuts every service down gracefully on SIGTERM, recording what was in flight", async () => {
    upstream.setBehaviour({ latencyMs: 400, content: "finished during shutdown" });
    const inFlight = fetch(`${target.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${target.token}`,
        "content-type": "application/json",
        "x-service-trace": "1",
      },
      body: JSON.stringify({ model: "x", messages: [{ role: "user", content: "last call" }] }),
    });
    await waitFor(() => upstream.requests.some((r) => JSON.stringify(r.body).includes("last call")), {
      what: "request upstream",
    });
    const ingress = processes.find((p) => p.name === "ingress")!;
    const ingressExit = ingress.stop();
    const response = await inFlight;
    assert.equal(response.status, 200, "the in-flight request finishes");
    assert.equal(await ingressExit, 0, ingress.output());
    // The usage-writer is still up: the record published during shutdown reaches the database.
    const row = await waitFor(() =>
      db.prisma.usageRecord
        .findFirst({ where: { traceId: response.headers.get("x-service-trace-id") ?? "" } })
        .then((r) => r ?? undefined),
    );
    assert.equal(row.outcome, "success");
    for (const service of processes.filter((p) => p !== ingress)) {
      assert.equal(await service.stop(), 0, `${service.name} exits 0\n${service.output()}`);
    }
  });
});
