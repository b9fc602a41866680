import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import { type AdminClient, adminClient } from "../support/admin-client.js";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";

const env = distributedEnv();

// The management API in distributed mode: admin-api as its own process behind ingress (which
// forwards /api/*), audit entries through NATS into PostgreSQL by the audit service.
describe("management API, distributed mode", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let services: DistributedGateway;
  let api: AdminClient;
  let upstream: FakeUpstream;

  before(async () => {
    upstream = await startFakeUpstream();
    services = await startDistributedGateway(async () => {}, { replicas: 2 });
    api = adminClient(services.url);
  });

  after(async () => {
    await services?.stop();
    await upstream?.close();
  });

  it("serves setup, login and permissions through ingress, and audits into PostgreSQL", async () => {
    assert.deepEqual((await api.get("/setup/status")).body, { configured: false });
    const setup = await api.post<{ token: string }>("/setup/first-admin", {
      email: "admin@example.com",
      password: "a long enough password",
    });
    assert.equal(setup.status, 201);
    const me = await api.get<{ email: string; role: string }>("/me", setup.body.token);
    assert.equal(me.status, 200);
    assert.equal(me.body.role, "admin");
    assert.equal((await api.get("/me")).status, 401);
    const viewer = await api.post(
      "/users",
      { email: "v@example.com", password: "a long enough password", role: "viewer" },
      setup.body.token,
    );
    assert.equal(viewer.status, 201);
    const login = await api.post<{ token: string }>("/auth/login", {
      email: "v@example.com",
      password: "a long enough password",
    });
    assert.equal(login.status, 200);
    const refused = await api.post("/roles", { name: "x", permissions: [] }, login.body.token);
    assert.equal(refused.status, 403);
    assert.equal((refused.body.error as { code: string }).code, "forbidden");
    const rows = await waitFor(
      async () => {
        const found = await services.db.prisma.auditEntry.findMany();
        return found.some((r) => r.result === "forbidden") && found.some((r) => r.action === "user:create")
          ? found
          : undefined;
      },
      { timeoutMs: 15_000, what: "audit rows stored by the audit service" },
    );
    const forbidden = rows.find((r) => r.result === "forbidden")!;
    assert.equal(forbidden.action, "role:create");
    assert.equal(forbidden.email, "v@example.com");
    assert.equal(forbidden.endpoint, "POST /api/roles");
  });

  it("answers unknown management paths with the 404 envelope, with or without a token", async () => {
    assert.equal((await api.get("/no-such-thing")).status, 404);
    const login = await api.post<{ token: string }>("/auth/login", {
      email: "admin@example.com",
      password: "a long enough password",
    });
    const answer = await api.get("/no-such-thing", login.body.token);
    assert.equal(answer.status, 404);
    assert.equal(typeof (answer.body.error as { message: string }).message, "string");
  });

  it("a change through the API reaches every replica's caches well before their TTL", async () => {
    const login = await api.post<{ token: string }>("/auth/login", {
      email: "admin@example.com",
      password: "a long enough password",
    });
    const admin = login.body.token;
    const model = await api.post(
      "/models",
      {
        id: "dist-model",
        provider: "custom",
        baseUrl: upstream.baseUrl,
        apiKey: "sk-upstream",
      },
      admin,
    );
    assert.equal(model.status, 201);
    const project = await api.post<{ slug: string }>(
      "/projects",
      { name: "Distributed", models: ["dist-model"] },
      admin,
    );
    assert.equal(project.status, 201);
    const token = await api.post<{ token: string }>(
      `/projects/${project.body.slug}/tokens`,
      { name: "ci" },
      admin,
    );
    assert.equal(token.status, 201);
    const chat = (url: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token.body.token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "hi" }] }),
      }).then(async (r) => ({ status: r.status, body: await r.text() }));
    // Both replicas (ingress, routing, budget) now hold the project in their caches.
    for (const url of services.urls) assert.equal((await chat(url)).status, 200);
    const changed = Date.now();
    const put = await api.put(
      `/projects/${project.body.slug}`,
      {
        budgets: [{ metric: "calls", limit: 0, windowType: "period", windowSize: "monthly" }],
      },
      admin,
    );
    assert.equal(put.status, 200);
    // The caches' TTL is 5 s: refusals before 3 s can only come from the config.changed broadcast.
    for (const url of services.urls)
      await waitFor(async () => (await chat(url)).status === 503, {
        timeoutMs: 3_000,
        intervalMs: 50,
        what: `replica ${url} to see the new budget`,
      });
    console.log(`# config change seen by both replicas after ${Date.now() - changed} ms`);
  });
});
