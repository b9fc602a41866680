import assert from "node:assert/strict";
import type { Prisma, UsageRecord } from "@gw/db";
import { storeUsageRows } from "@gw/service-usage-writer";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import { type AdminGateway, startAdminGateway } from "./admin-gateway.js";
import { DAY, HOUR, lastUserText, upstreamModelOf } from "./usage-expectations.js";

/** A standalone gateway holding usage records of every kind, most of them made through the proxy. */
export interface UsageThroughProxy {
  gateway: AdminGateway;
  upstream: FakeUpstream;
  /** The first admin's access token. */
  admin: string;
  /** Every stored record, read back after the calls. */
  all: UsageRecord[];
  projects: Record<string, { id: string; token: string }>;
  /** Trace ids of the requests the routing model ranked (a routing call + a completion each). */
  routerTraceIds: string[];
  /** Epoch ms before the first record was made. */
  startedAt: number;
  stop(): Promise<void>;
}

/**
 * The records of the usage e2e suite (test/e2e/admin-usage-standalone.test.ts), made THROUGH THE
 * PROXY: successes, upstream errors, timeouts, a calls budget running out, a routing model's
 * calls, several projects and models, end users, conversations, token tags, a stream; stored by
 * the real usage-writer. Guardrail records, which the proxy cannot make yet, and older records
 * (for the rollups) are stored through the writer's own path.
 */
export async function makeUsageThroughProxy(): Promise<UsageThroughProxy> {
  const startedAt = Date.now();
  const projects: Record<string, { id: string; token: string }> = {};
  const routerTraceIds: string[] = [];
  const gateway = await startAdminGateway("usage");
  const upstream = await startFakeUpstream();
  const admin = gateway.adminToken;
  const prisma = () => gateway.handle.db.prisma;

  async function createProject(slug: string, body: Record<string, unknown>, tags: Record<string, string>) {
    const created = await gateway.api.post<{ id: string }>("/projects", { name: slug, slug, ...body }, admin);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const token = await gateway.api.post<{ token: string }>(
      `/projects/${slug}/tokens`,
      { name: "t", tags },
      admin,
    );
    assert.equal(token.status, 201, JSON.stringify(token.body));
    projects[slug] = { id: created.body.id, token: token.body.token! };
  }

  async function chat(
    slug: string,
    text: string,
    options: { user?: string; conversation?: string; stream?: boolean } = {},
  ): Promise<Response> {
    const response = await fetch(`${gateway.handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${projects[slug]!.token}`,
        "content-type": "application/json",
        "x-service-trace": "1",
        ...(options.conversation ? { "x-service-conversation-id": options.conversation } : {}),
      },
      body: JSON.stringify({
        model: "any",
        messages: [{ role: "user", content: text }],
        ...(options.user ? { user: options.user } : {}),
        ...(options.stream ? { stream: true } : {}),
      }),
    });
    await response.arrayBuffer();
    return response;
  }

  try {
    // Models are another resource's routes: made directly (row shape of services/standalone seed).
    const model = (id: string, price: number | null, capabilities: string[] = []) =>
      prisma().model.create({
        data: {
          id,
          provider: "custom",
          baseUrl: upstream.baseUrl,
          upstreamModel: `${id}-up`,
          inputPrice: price,
          outputPrice: price === null ? null : price * 3,
          contextWindow: 128_000,
          capabilities,
        },
      });
    await model("u-cheap", 0.5);
    await model("u-dear", 4);
    await model("u-free", null);
    await model("u-router", 0.2, ["chat", "json"]);
    // Per request: FAIL -> 500 from every model, SLOW -> later than the project's timeout; the
    // routing model ranks u-dear first.
    upstream.setBehaviour((request) => {
      if (upstreamModelOf(request) === "u-router-up")
        return { content: JSON.stringify({ ranking: ["u-dear", "u-cheap"] }) };
      const text = lastUserText(request);
      if (text.includes("FAIL")) return { status: 500 };
      if (text.includes("SLOW")) return { latencyMs: 1500 };
      return {};
    });
    await createProject("usage-alpha", { models: ["u-cheap", "u-dear"] }, { team: "red" });
    await createProject(
      "usage-beta",
      { models: ["u-free", "u-dear"], defaultTimeoutMs: 400 },
      { team: "blue" },
    );
    await createProject(
      "usage-gamma",
      {
        models: ["u-cheap"],
        budgets: [{ metric: "calls", limit: 3, windowType: "period", windowSize: "monthly" }],
      },
      {},
    );
    await createProject(
      "usage-router",
      {
        models: ["u-cheap", "u-dear"],
        policies: ["llm"],
        routing: { llm: { modelId: "u-router", timeoutMs: 3000 } },
      },
      { team: "red", env: "prod" },
    );

    let requests = 0;
    const send = async (...args: Parameters<typeof chat>) => {
      requests++;
      return chat(...args);
    };
    for (let i = 0; i < 6; i++)
      await send("usage-alpha", `hello ${i}`, {
        user: i % 2 === 0 ? "alice" : "bob",
        ...(i < 3 ? { conversation: "conv-alpha" } : {}),
        stream: i === 5,
      });
    for (let i = 0; i < 4; i++) await send("usage-beta", `beta ${i}`, { user: "alice" });
    for (let i = 0; i < 5; i++) await send("usage-gamma", `gamma ${i}`, { user: "dave" });
    for (let i = 0; i < 3; i++) {
      const answer = await send("usage-router", `route ${i}`, { user: "erin", conversation: `conv-r${i}` });
      assert.equal(answer.status, 200);
      routerTraceIds.push(answer.headers.get("x-service-trace-id") ?? "");
    }
    // Failures last: they count against the models' shared health.
    assert.ok((await send("usage-alpha", "please FAIL")).status >= 500);
    assert.ok((await send("usage-beta", "FAIL here too", { user: "carol" })).status >= 500);
    const slow = await send("usage-beta", "SLOW please", { user: "carol" });
    assert.ok(slow.status >= 500, `timeout answered ${slow.status}`);
    // One record per request, plus one per routing-model call.
    const expected = requests + routerTraceIds.length;
    await waitFor(async () => (await prisma().usageRecord.count()) === expected, {
      timeoutMs: 30_000,
      what: `${expected} stored usage records`,
    });

    // Guardrails cannot block a request through the proxy yet, nor make judge calls: their records
    // (`blocked` outcomes, `guardrail` call types) go through the usage-writer path instead, as the
    // bus would deliver them. Older records exercise the hourly and daily rollups and the default
    // 30-day range; one is 40 days old, outside it.
    const now = Date.now();
    const synthetic = (i: number, at: number, fields: Partial<Prisma.UsageRecordCreateManyInput>) => ({
      id: `usg_synthetic_${String(i).padStart(3, "0")}`,
      timestamp: new Date(at),
      projectId: projects["usage-alpha"]!.id,
      projectSlug: "usage-alpha",
      modelId: "u-cheap",
      provider: "custom",
      inputTokens: 10 + i,
      outputTokens: i % 7,
      totalTokens: 10 + i + (i % 7),
      costMicros: BigInt(100 + i * 13),
      durationMs: 100 + ((i * 37) % 800),
      outcome: "success",
      status: 200,
      traceId: `trace_synthetic_${i}`,
      callType: "completion",
      ...fields,
    });
    const rows: Prisma.UsageRecordCreateManyInput[] = [];
    for (let i = 0; i < 4; i++)
      rows.push(
        synthetic(i, now - 10 * 60_000 - i * 1000, {
          modelId: null,
          provider: null,
          inputTokens: 0,
          outputTokens: 0,
          totalTokens: 0,
          costMicros: null,
          durationMs: 2 + i,
          outcome: "blocked",
          status: 400,
          guardrailTriggered: "regex:secret",
          blockedBy: "regex:secret",
          endUserId: "alice",
        }),
      );
    for (let i = 4; i < 8; i++)
      rows.push(
        synthetic(i, now - 20 * 60_000 - i * 1000, {
          callType: "guardrail",
          modelId: "u-dear",
          endUserId: "alice",
        }),
      );
    for (let i = 8; i < 130; i++)
      rows.push(
        synthetic(i, now - (i % 12) * DAY - (i % 23) * HOUR - i * 7_000, {
          projectId: i % 3 === 0 ? projects["usage-beta"]!.id : projects["usage-alpha"]!.id,
          projectSlug: i % 3 === 0 ? "usage-beta" : "usage-alpha",
          modelId: ["u-cheap", "u-dear", "u-free"][i % 3]!,
          costMicros: i % 3 === 2 ? null : BigInt(100 + i * 13),
          outcome: i % 11 === 0 ? "timeout" : i % 13 === 0 ? "error" : "success",
        }),
      );
    rows.push(synthetic(130, now - 40 * DAY, {}));
    assert.equal((await storeUsageRows(prisma(), rows)).inserted, rows.length);
    const all = await prisma().usageRecord.findMany();
    return {
      gateway,
      upstream,
      admin,
      all,
      projects,
      routerTraceIds,
      startedAt,
      async stop() {
        await gateway.stop();
        await upstream.close();
      },
    };
  } catch (error) {
    // A failed setup must not leave a gateway and an upstream listening.
    await gateway.stop();
    await upstream.close();
    throw error;
  }
}
