import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type FakeUpstream,
  type MetricReceivers,
  startFakeUpstream,
  startMetricReceivers,
  waitFor,
} from "@gw/testing";
import { Redis } from "ioredis";
import { type AdminClient, adminClient } from "../support/admin-client.js";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";

const env = distributedEnv();
const MODEL = "dist-push-model";
const PULL_TOKEN = "prom-dist-canary-8d2e";

// Distributed mode: the metrics exporter counts (its own process, keys under BUS_NAMESPACE in
// Redis), and admin-api, behind ingress, reads the same state: the Prometheus pull endpoint at
// ingress's /api/metrics and the test push of an integration both show requests made through the proxy.
describe("integrations, distributed mode", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let services: DistributedGateway;
  let api: AdminClient;
  let upstream: FakeUpstream;
  let receivers: MetricReceivers;
  let admin: string;
  let slug: string;
  let projectToken: string;

  before(async () => {
    upstream = await startFakeUpstream();
    receivers = await startMetricReceivers();
    services = await startDistributedGateway(async () => {}, { metricsExporters: 1 });
    api = adminClient(services.url);
    const setup = await api.post<{ token: string }>("/setup/first-admin", {
      email: "admin@example.com",
      password: "a long enough password",
    });
    admin = setup.body.token;
    const model = await api.post(
      "/models",
      { id: MODEL, provider: "custom", baseUrl: upstream.baseUrl, apiKey: "sk-upstream" },
      admin,
    );
    assert.equal(model.status, 201, JSON.stringify(model.body));
    slug = (await api.post<{ slug: string }>("/projects", { name: "Dist pushes", models: [MODEL] }, admin))
      .body.slug;
    projectToken = (await api.post<{ token: string }>(`/projects/${slug}/tokens`, { name: "ci" }, admin)).body
      .token;
  });

  after(async () => {
    const namespace = services?.busNamespace;
    await services?.stop();
    await receivers?.close();
    await upstream?.close();
    // The metric state this suite made in the shared Redis (prefixed with its namespace).
    if (namespace) {
      const redis = new Redis(env.REDIS_URL!);
      try {
        const keys = await redis.keys(`${namespace}:metrics:*`);
        if (keys.length > 0) await redis.del(...keys);
      } finally {
        redis.disconnect();
      }
    }
  });

  it("serves the pull endpoint through ingress and test-pushes what the exporter counted", async () => {
    const none = await fetch(`${services.url}/api/metrics`);
    assert.equal(none.status, 404);
    const prometheus = await api.post<{ id: string }>(
      "/integrations",
      { type: "prometheus", authToken: PULL_TOKEN },
      admin,
    );
    assert.equal(prometheus.status, 201);
    assert.equal((await fetch(`${services.url}/api/metrics`)).status, 401);

    const chat = await fetch(`${services.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${projectToken}`, "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(chat.status, 200);
    const line = `service_requests_total{project="${slug}",model="${MODEL}"} 1`;
    await waitFor(
      async () => {
        const scrape = await fetch(`${services.url}/api/metrics`, {
          headers: { authorization: `Bearer ${PULL_TOKEN}` },
        });
        const text = await scrape.text();
        return scrape.status === 200 && text.split("\n").includes(line) ? text : undefined;
      },
      { timeoutMs: 30_000, what: "the request counted by the exporter, served by admin-api" },
    );

    const hook = await api.post<{ id: string }>(
      "/integrations",
      { type: "webhook", url: `${receivers.webhook.url}/hook` },
      admin,
    );
    const tested = await api.post<{ ok: boolean; message: string }>(
      `/integrations/${hook.body.id}/test`,
      undefined,
      admin,
    );
    assert.equal(tested.status, 200);
    assert.equal(tested.body.ok, true, tested.body.message);
    const push = receivers.webhook.pushes.find((p) =>
      p.metrics.some(
        (m) => m.name === "service_requests_total" && m.labels.project === slug && m.value === 1,
      ),
    );
    assert.ok(push, "the test push carried the counted request");
  });
});
