import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { UsageRecord } from "@gw/db";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import { type AdminClient, adminClient } from "../support/admin-client.js";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";
import {
  type ApiRecord,
  DAY,
  type EndUser,
  expectedEndUsers,
  expectedReport,
  type Filter,
  HOUR,
  lastUserText,
  type Report,
  upstreamModelOf,
} from "../support/usage-expectations.js";

const env = distributedEnv();

/**
 * The usage API in distributed mode: records made through two ingress replicas (and the routing
 * services' own routing-model calls), carried by NATS to the usage-writer process, stored in
 * PostgreSQL with their rollups, and read by the admin-api process behind ingress.
 */
describe("management API: usage, distributed mode", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let services: DistributedGateway;
  let api: AdminClient;
  let upstream: FakeUpstream;
  let admin: string;
  let all: UsageRecord[];
  const projects: Record<string, { id: string; token: string }> = {};
  let routerTraceId = "";

  const usage = async (query: Record<string, string>) => {
    const answer = await api.get<Report>(`/usage?${new URLSearchParams(query)}`, admin);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  before(async () => {
    upstream = await startFakeUpstream();
    upstream.setBehaviour((request) => {
      if (upstreamModelOf(request) === "d-router-up")
        return { content: JSON.stringify({ ranking: ["d-dear", "d-cheap"] }) };
      return lastUserText(request).includes("FAIL") ? { status: 500 } : {};
    });
    services = await startDistributedGateway(
      async (db) => {
        for (const [id, price, capabilities] of [
          ["d-cheap", 0.5, []],
          ["d-dear", 4, []],
          ["d-free", null, []],
          ["d-router", 0.2, ["chat", "json"]],
        ] as const)
          await db.prisma.model.create({
            data: {
              id,
              provider: "custom",
              baseUrl: upstream.baseUrl,
              upstreamModel: `${id}-up`,
              inputPrice: price,
              outputPrice: price === null ? null : price * 3,
              contextWindow: 128_000,
              capabilities: [...capabilities],
            },
          });
      },
      { replicas: 2 },
    );
    api = adminClient(services.url);
    const setup = await api.post<{ token: string }>("/setup/first-admin", {
      email: "admin@example.com",
      password: "a long enough password",
    });
    assert.equal(setup.status, 201);
    admin = setup.body.token;
    const project = async (slug: string, body: Record<string, unknown>) => {
      const created = await api.post<{ id: string }>("/projects", { name: slug, slug, ...body }, admin);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const token = await api.post<{ token: string }>(
        `/projects/${slug}/tokens`,
        { name: "t", tags: { team: slug } },
        admin,
      );
      assert.equal(token.status, 201);
      projects[slug] = { id: created.body.id, token: token.body.token };
    };
    await project("d-alpha", { models: ["d-cheap", "d-free"] });
    await project("d-gamma", {
      models: ["d-dear"],
      budgets: [{ metric: "calls", limit: 2, windowType: "period", windowSize: "monthly" }],
    });
    await project("d-router", {
      models: ["d-cheap", "d-dear"],
      policies: ["llm"],
      routing: { llm: { modelId: "d-router", timeoutMs: 3000 } },
    });

    let requests = 0;
    const chat = async (slug: string, text: string, user?: string) => {
      // Alternate between the two ingress replicas (each with its own routing and budget).
      const url = services.urls[requests++ % services.urls.length]!;
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${projects[slug]!.token}`,
          "content-type": "application/json",
          "x-service-trace": "1",
        },
        body: JSON.stringify({
          model: "any",
          messages: [{ role: "user", content: text }],
          ...(user ? { user } : {}),
        }),
      });
      await response.arrayBuffer();
      return response;
    };
    // The project config reaches both replicas through config.changed: wait until each serves.
    for (const url of services.urls)
      await waitFor(
        async () => {
          const response = await fetch(`${url}/v1/models`, {
            headers: { authorization: `Bearer ${projects["d-alpha"]!.token}` },
          });
          await response.arrayBuffer();
          return response.status === 200;
        },
        { timeoutMs: 15_000, what: "both replicas to know the token" },
      );
    for (let i = 0; i < 6; i++) await chat("d-alpha", `hello ${i}`, i % 2 === 0 ? "alice" : "bob");
    for (let i = 0; i < 4; i++) await chat("d-gamma", `gamma ${i}`, "dave");
    const routed = await chat("d-router", "route me", "erin");
    assert.equal(routed.status, 200);
    routerTraceId = routed.headers.get("x-service-trace-id") ?? "";
    assert.ok((await chat("d-alpha", "FAIL now", "alice")).status >= 500);
    const expected = requests + 1; // plus the routing model's call
    all = await waitFor(
      async () => {
        const rows = await services.db.prisma.usageRecord.findMany();
        return rows.length === expected ? rows : undefined;
      },
      { timeoutMs: 30_000, what: `${expected} usage records in PostgreSQL` },
    );
  });

  after(async () => {
    await services?.stop();
    await upstream?.close();
  });

  it("answers the report from PostgreSQL's rollups exactly, for every filter", async () => {
    const outcomes = new Set(all.map((r) => r.outcome));
    for (const outcome of ["success", "error", "budget_exceeded"]) assert.ok(outcomes.has(outcome), outcome);
    const to = new Date(Date.now() + HOUR);
    // A range with whole days inside, so daily and hourly rollups and raw edges are all read.
    const from = new Date(Date.now() - 3 * DAY - 17 * 60_000);
    const cases: { query: Record<string, string>; filter: Omit<Filter, "from" | "to"> }[] = [
      { query: {}, filter: {} },
      { query: { project: "d-alpha" }, filter: { projectIds: [projects["d-alpha"]!.id] } },
      { query: { modelIds: "d-free,d-router" }, filter: { modelIds: ["d-free", "d-router"] } },
      { query: { callType: "routing" }, filter: { callType: "routing" } },
      { query: { outcome: "error" }, filter: { outcome: "error" } },
      {
        query: { projectIds: projects["d-gamma"]!.id, outcome: "budget_exceeded" },
        filter: { projectIds: [projects["d-gamma"]!.id], outcome: "budget_exceeded" },
      },
    ];
    for (const { query, filter } of cases) {
      const report = await usage({ ...query, from: from.toISOString(), to: to.toISOString() });
      const expected = expectedReport(all, { from, to, ...filter });
      const label = JSON.stringify(query);
      assert.equal(report.range.bucket, "day");
      assert.deepEqual(report.summary, expected.summary, label);
      assert.deepEqual(report.byModel, expected.byModel, label);
      assert.equal(
        report.timeline.reduce((sum, bucket) => sum + bucket.calls, 0),
        expected.hit.length,
      );
      assert.deepEqual(
        report.records.map((r) => r.id),
        expected.newestFirst.slice(0, 100).map((r) => r.id),
        label,
      );
      assert.equal(report.pagination.total, expected.hit.length);
    }
    const page = await usage({ limit: "3", offset: "2" });
    assert.deepEqual(page.pagination, { limit: 3, offset: 2, total: all.length });
    assert.equal(page.records.length, 3);
  });

  it("serves the full record, the trace and the end users", async () => {
    const records = all
      .filter((r) => r.traceId === routerTraceId)
      .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || (a.id < b.id ? -1 : 1));
    assert.deepEqual(records.map((r) => r.callType).sort(), ["completion", "routing"]);
    const completion = records.find((r) => r.callType === "completion")!;
    const full = await api.get<ApiRecord>(`/usage/${completion.id}`, admin);
    assert.equal(full.status, 200);
    assert.deepEqual(full.body.trace, completion.trace);
    assert.deepEqual(full.body.tags, { team: "d-router" });
    const trace = await api.get<{ trace: unknown[] }>(`/traces/${routerTraceId}`, admin);
    assert.deepEqual(
      trace.body.trace,
      records.flatMap((r) => r.trace as unknown[]),
    );
    const users = await api.get<{ users: EndUser[] }>(
      `/end-users?projectId=${projects["d-alpha"]!.id}`,
      admin,
    );
    assert.equal(users.status, 200);
    const want = expectedEndUsers(all)
      .filter((u) => u.projectId === projects["d-alpha"]!.id)
      .sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
    assert.deepEqual(
      users.body.users.map(
        ({ unpricedCalls: _unpriced, ...user }: EndUser & { unpricedCalls?: number }) => user,
      ),
      want,
    );
    assert.deepEqual(want.map((u) => u.userId).sort(), ["alice", "bob"]);
  });
});
