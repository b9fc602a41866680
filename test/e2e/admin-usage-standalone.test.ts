import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { UsageRecord } from "@gw/db";
import type { AdminGateway } from "../support/admin-gateway.js";
import {
  type ApiRecord,
  type Bucket,
  DAY,
  type EndUser,
  type ErrorBody,
  expectedEndUsers,
  expectedReport,
  type Filter,
  HOUR,
  isError,
  micros,
  type Report,
  sumOf,
} from "../support/usage-expectations.js";
import { makeUsageThroughProxy, type UsageThroughProxy } from "../support/usage-through-proxy.js";

/**
 * GET /api/usage, /api/usage/:id, /api/traces/:id and /api/end-users end to end (standalone, real
 * HTTP). Records are made THROUGH THE PROXY (test/support/usage-through-proxy.ts), stored by the
 * real usage-writer, and every answer is checked against the stored records, aggregated here
 * independently of the API's planner.
 */

describe("management API: usage, traces, end users (standalone)", () => {
  let fixture: UsageThroughProxy | undefined;
  let gateway: AdminGateway;
  let admin: string;
  let all: UsageRecord[];
  let projects: UsageThroughProxy["projects"];
  let routerTraceIds: string[];
  let startedAt: number;

  const get = <T>(path: string, token = admin) => gateway.api.get<T>(path, token);
  const usage = async (query: Record<string, string | undefined>, token = admin) => {
    const params = new URLSearchParams(
      Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
    const answer = await get<Report>(`/usage?${params}`, token);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };

  before(async () => {
    fixture = await makeUsageThroughProxy();
    ({ gateway, admin, all, projects, routerTraceIds, startedAt } = fixture);
  });

  after(async () => {
    await fixture?.stop();
  });

  it("made every kind of record through the proxy", () => {
    const proxied = all.filter((r) => !r.id.startsWith("usg_synthetic"));
    const outcomes = new Set(proxied.map((r) => r.outcome));
    for (const outcome of ["success", "error", "timeout", "budget_exceeded"])
      assert.ok(outcomes.has(outcome), `no ${outcome} record: ${[...outcomes]}`);
    assert.ok(proxied.some((r) => r.callType === "routing" && r.modelId === "u-router"));
    assert.ok(proxied.some((r) => r.sessionId === "conv-alpha"));
    assert.ok(proxied.some((r) => r.endUserId === "erin"));
    assert.ok(proxied.some((r) => r.streamed));
    assert.ok(
      proxied.some((r) => r.costMicros === null && r.modelId === "u-free"),
      "an unpriced call",
    );
    assert.deepEqual(
      proxied.find((r) => r.projectSlug === "usage-router" && r.callType === "completion")?.tags,
      { team: "red", env: "prod" },
    );
  });

  it("reports the last 30 days by default: summary, byModel, timeline by day", async () => {
    const before = Date.now();
    const report = await usage({});
    const to = new Date(report.range.to);
    const from = new Date(report.range.from);
    assert.ok(to.getTime() >= before && to.getTime() <= Date.now());
    assert.equal(to.getTime() - from.getTime(), 30 * DAY);
    assert.equal(report.range.bucket, "day");
    const expected = expectedReport(all, { from, to });
    assert.equal(expected.hit.length, all.length - 1, "the 40-day-old record is outside the default range");
    assert.deepEqual(report.summary, expected.summary);
    assert.deepEqual(report.byModel, expected.byModel);
    assert.ok(Object.keys(report.byModel).length === 4);
    // Timeline: one bucket per UTC day of the range, zeros included, summing to the totals.
    assert.equal(report.timeline.length, 31);
    assert.equal(report.timeline[0]!.start, new Date(Math.floor(from.getTime() / DAY) * DAY).toISOString());
    for (const bucket of report.timeline) {
      const start = Date.parse(bucket.start);
      const list = expected.hit.filter(
        (r) => r.timestamp.getTime() >= start && r.timestamp.getTime() < start + DAY,
      );
      assert.deepEqual(bucket, {
        start: bucket.start,
        calls: list.length,
        cost: micros(list) / 1e6,
        successCalls: list.filter((r) => r.outcome === "success").length,
        errorCalls: list.filter(isError).length,
        blockedCalls: list.filter((r) => r.outcome === "blocked").length,
        totalTokens: sumOf(list, (r) => r.totalTokens),
      });
    }
    const sum = (pick: (b: Bucket) => number) => report.timeline.reduce((s, b) => s + pick(b), 0);
    assert.equal(
      sum((b) => b.calls),
      report.summary.totalCalls,
    );
    assert.equal(
      sum((b) => b.successCalls + b.errorCalls + b.blockedCalls),
      report.summary.totalCalls,
    );
    assert.equal(
      sum((b) => b.totalTokens),
      report.summary.totalTokens,
    );
    assert.ok(Math.abs(sum((b) => b.cost) - report.summary.totalCost!) < 1e-9);
    // Records: the newest 100 by default, all matching counted.
    assert.deepEqual(report.pagination, { limit: 100, offset: 0, total: expected.hit.length });
    assert.deepEqual(
      report.records.map((r) => r.id),
      expected.newestFirst.slice(0, 100).map((r) => r.id),
    );
    assert.ok(
      report.records.every((r) => !("trace" in r)),
      "list records carry no trace",
    );
  });

  it("applies every filter, alone and combined with AND", async () => {
    const from = new Date(startedAt - 50 * DAY);
    const to = new Date(Date.now() + HOUR);
    const ids = (slug: string) => projects[slug]!.id;
    const cases: { query: Record<string, string>; filter: Omit<Filter, "from" | "to"> }[] = [
      { query: { project: "usage-alpha" }, filter: { projectIds: [ids("usage-alpha")] } },
      {
        query: { projectIds: `${ids("usage-beta")},${ids("usage-gamma")}` },
        filter: { projectIds: [ids("usage-beta"), ids("usage-gamma")] },
      },
      { query: { model: "u-dear" }, filter: { modelIds: ["u-dear"] } },
      { query: { modelIds: "u-free,u-router" }, filter: { modelIds: ["u-free", "u-router"] } },
      ...["completion", "routing", "guardrail"].map((callType) => ({
        query: { callType },
        filter: { callType },
      })),
      ...["success", "error", "budget_exceeded", "timeout", "blocked"].map((outcome) => ({
        query: { outcome },
        filter: { outcome },
      })),
      {
        query: { project: "usage-beta", model: "u-free", outcome: "error" },
        filter: { projectIds: [ids("usage-beta")], modelIds: ["u-free"], outcome: "error" },
      },
      {
        query: {
          projectIds: `${ids("usage-alpha")},${ids("usage-router")}`,
          callType: "completion",
          modelIds: "u-dear,u-cheap",
        },
        filter: {
          projectIds: [ids("usage-alpha"), ids("usage-router")],
          callType: "completion",
          modelIds: ["u-dear", "u-cheap"],
        },
      },
      // Multi-value AND single-value: the intersection.
      {
        query: { project: "usage-alpha", projectIds: `${ids("usage-alpha")},${ids("usage-beta")}` },
        filter: { projectIds: [ids("usage-alpha")] },
      },
      { query: { project: "usage-alpha", projectIds: ids("usage-beta") }, filter: { projectIds: [] } },
      { query: { model: "u-dear", modelIds: "u-cheap" }, filter: { modelIds: [] } },
      { query: { project: "no-such-project" }, filter: { projectIds: [] } },
    ];
    for (const { query, filter } of cases) {
      const report = await usage({ ...query, from: from.toISOString(), to: to.toISOString() });
      const expected = expectedReport(all, { from, to, ...filter });
      const label = JSON.stringify(query);
      assert.deepEqual(report.summary, expected.summary, label);
      assert.deepEqual(report.byModel, expected.byModel, label);
      assert.equal(report.pagination.total, expected.hit.length, label);
      assert.deepEqual(
        report.records.map((r) => r.id),
        expected.newestFirst.slice(0, 100).map((r) => r.id),
        label,
      );
      assert.equal(
        report.timeline.reduce((s, b) => s + b.calls, 0),
        expected.hit.length,
        label,
      );
    }
    // Guard against a vacuous table: most filters match something.
    const error = await usage({ outcome: "error", from: from.toISOString(), to: to.toISOString() });
    assert.equal(
      error.summary.totalCalls,
      all.filter((r) => ["error", "timeout", "budget_exceeded"].includes(r.outcome)).length,
    );
    assert.ok(error.summary.totalCalls! > 5);
  });

  it("buckets short ranges by minute and hour, exactly", async () => {
    const to = new Date(Date.now() + 60_000);
    for (const [span, bucket, size] of [
      [2 * HOUR, "minute", 60_000],
      [2 * DAY, "hour", HOUR],
      [100 * DAY, "week", 7 * DAY],
    ] as const) {
      const from = new Date(to.getTime() - span);
      const report = await usage({ from: from.toISOString(), to: to.toISOString() });
      assert.equal(report.range.bucket, bucket);
      const expected = expectedReport(all, { from, to });
      assert.deepEqual(report.summary, expected.summary, bucket);
      assert.ok(expected.hit.length > 0);
      for (const b of report.timeline) {
        const start = Date.parse(b.start);
        const list = expected.hit.filter(
          (r) => r.timestamp.getTime() >= start && r.timestamp.getTime() < start + size,
        );
        assert.equal(b.calls, list.length, `${bucket} ${b.start}`);
        assert.equal(
          b.totalTokens,
          sumOf(list, (r) => r.totalTokens),
        );
      }
      assert.equal(
        report.timeline.reduce((s, b) => s + b.calls, 0),
        expected.hit.length,
      );
      if (bucket === "week")
        assert.equal(new Date(report.timeline[0]!.start).getUTCDay(), 1, "weeks start on Monday");
    }
    // A date alone is a whole UTC day on either side.
    const today = new Date().toISOString().slice(0, 10);
    const day = await usage({ from: today, to: today });
    assert.equal(day.range.from, `${today}T00:00:00.000Z`);
    assert.equal(Date.parse(day.range.to) - Date.parse(day.range.from), DAY);
    assert.equal(day.range.bucket, "hour");
  });

  it("pages records with limit and offset, newest first", async () => {
    const from = new Date(startedAt - 50 * DAY).toISOString();
    const to = new Date(Date.now() + HOUR).toISOString();
    const order = expectedReport(all, { from: new Date(from), to: new Date(to) }).newestFirst;
    const seen: string[] = [];
    for (let offset = 0; offset < order.length; offset += 40) {
      const page = await usage({ from, to, limit: "40", offset: String(offset) });
      assert.deepEqual(page.pagination, { limit: 40, offset, total: order.length });
      seen.push(...page.records.map((r) => r.id));
    }
    assert.deepEqual(
      seen,
      order.map((r) => r.id),
    );
    const beyond = await usage({ from, to, offset: String(order.length + 5) });
    assert.deepEqual(beyond.records, []);
    assert.equal(beyond.pagination.total, order.length);
    const one = await usage({ from, to, limit: "1", model: "u-free" });
    const record = all.find((r) => r.id === one.records[0]!.id)!;
    assert.equal(one.records[0]!.cost, null, "an unpriced model's cost is null, not $0");
    assert.deepEqual(one.records[0], {
      id: record.id,
      timestamp: record.timestamp.toISOString(),
      projectId: record.projectId,
      projectSlug: record.projectSlug,
      modelId: record.modelId,
      provider: record.provider,
      inputTokens: record.inputTokens,
      outputTokens: record.outputTokens,
      cacheTokens: record.cacheTokens,
      totalTokens: record.totalTokens,
      cost: null,
      durationMs: record.durationMs,
      outcome: record.outcome,
      status: record.status,
      traceId: record.traceId,
      callType: record.callType,
      sessionId: record.sessionId,
      endUserId: record.endUserId,
      tags: record.tags,
      guardrailTriggered: record.guardrailTriggered,
      blockedBy: record.blockedBy,
      piiRedacted: record.piiRedacted,
      endpoint: record.endpoint,
      streamed: record.streamed,
      errorMessage: record.errorMessage,
    });
  });

  it("GET /api/usage/:id returns the full record with its routing trace", async () => {
    const completion = all.find((r) => r.traceId === routerTraceIds[0] && r.callType === "completion")!;
    const answer = await get<ApiRecord>(`/usage/${completion.id}`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.id, completion.id);
    assert.equal(answer.body.cost, Number(completion.costMicros) / 1e6);
    assert.equal(answer.body.sessionId, "conv-r0");
    assert.deepEqual(answer.body.trace, completion.trace);
    const trace = answer.body.trace as { stage: string; name?: string }[];
    assert.ok(
      trace.some((entry) => entry.stage === "policy" && entry.name === "llm"),
      JSON.stringify(trace),
    );
    const missing = await get<ErrorBody>("/usage/usg_nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "not_found");
  });

  it("GET /api/traces/:id joins the routing call and the completion of one request", async () => {
    for (const traceId of routerTraceIds) {
      const records = all
        .filter((r) => r.traceId === traceId)
        .sort((a, b) => a.timestamp.getTime() - b.timestamp.getTime() || (a.id < b.id ? -1 : 1));
      assert.deepEqual(records.map((r) => r.callType).sort(), ["completion", "routing"]);
      const answer = await get<{ trace: unknown[] }>(`/traces/${traceId}`);
      assert.equal(answer.status, 200);
      assert.deepEqual(
        answer.body.trace,
        records.flatMap((r) => r.trace as unknown[]),
      );
      assert.ok(answer.body.trace.length > 0);
    }
    const missing = await get<ErrorBody>("/traces/trace_nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.type, "not_found_error");
  });

  it("GET /api/end-users lists each project's users, most recent first", async () => {
    const strip = (users: (EndUser & { unpricedCalls?: number })[]) =>
      users.map(({ unpricedCalls: _unpriced, ...user }) => user);
    const answer = await get<{ users: EndUser[] }>("/end-users");
    assert.equal(answer.status, 200);
    // Most recently seen first (records here never share a millisecond).
    const want = expectedEndUsers(all).sort((a, b) => b.lastSeen.localeCompare(a.lastSeen));
    assert.deepEqual(
      strip(answer.body.users).map((u) => `${u.projectId}/${u.userId}`),
      want.map((u) => `${u.projectId}/${u.userId}`),
    );
    assert.deepEqual(
      strip(answer.body.users).sort((a, b) =>
        `${a.projectId}/${a.userId}`.localeCompare(`${b.projectId}/${b.userId}`),
      ),
      want.sort((a, b) => `${a.projectId}/${a.userId}`.localeCompare(`${b.projectId}/${b.userId}`)),
    );
    assert.ok(want.length >= 6, "alice and bob, alice, carol, dave, erin");
    const beta = await get<{ users: EndUser[] }>(`/end-users?projectId=${projects["usage-beta"]!.id}`);
    assert.deepEqual(
      strip(beta.body.users)
        .map((u) => u.userId)
        .sort(),
      ["alice", "carol"],
    );
    assert.ok(beta.body.users.every((u) => u.projectId === projects["usage-beta"]!.id));
    const none = await get<{ users: EndUser[] }>("/end-users?projectId=proj_nope");
    assert.deepEqual(none.body.users, []);
  });

  it("refuses bad parameters with a 400 in the envelope", async () => {
    const bad: Record<string, string>[] = [
      { from: "yesterday" },
      { to: "2026-02-30" },
      { from: "2026-03-03", to: "2026-03-01" },
      { from: "2026-03-01T10:00:00Z", to: "2026-03-01T09:59:59Z" },
      { from: "1990-01-01", to: "2026-01-01" },
      { callType: "embedding" },
      { outcome: "failed" },
      { limit: "0" },
      { limit: "1001" },
      { limit: "ten" },
      { limit: "1.5" },
      { offset: "-1" },
      { projectIds: "," },
      { modelIds: "" },
      { project: "" },
    ];
    for (const query of bad) {
      const answer = await get<ErrorBody>(`/usage?${new URLSearchParams(query)}`);
      assert.equal(answer.status, 400, JSON.stringify(query));
      assert.equal(answer.body.error.type, "invalid_request_error");
      assert.equal(typeof answer.body.error.message, "string");
      const field = Object.keys(query)[0]!;
      assert.ok(answer.body.error.message.startsWith(field), `${answer.body.error.message} names ${field}`);
    }
    assert.equal((await get<ErrorBody>("/end-users?limit=0")).status, 400);
    assert.equal((await get<ErrorBody>("/end-users?projectId=")).status, 400);
    // from == to is an empty range, not an error.
    const empty = await usage({ from: "2026-03-01T10:00:00Z", to: "2026-03-01T10:00:00Z" });
    assert.equal(empty.summary.totalCalls, 0);
    assert.deepEqual(empty.timeline, []);
  });

  it("needs report:read: 401 without a token, 403 without the permission", async () => {
    const created = await gateway.api.post(
      "/roles",
      { name: "models-only", permissions: ["model:read"] },
      admin,
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const outsider = await gateway.userWithRole("models-only");
    const viewer = await gateway.userWithRole("viewer");
    const someRecord = all[0]!;
    for (const path of ["/usage", `/usage/${someRecord.id}`, `/traces/${someRecord.traceId}`, "/end-users"]) {
      assert.equal((await gateway.api.get(path)).status, 401, path);
      const forbidden = await get<ErrorBody>(path, outsider.token);
      assert.equal(forbidden.status, 403, path);
      assert.equal(forbidden.body.error.code, "forbidden");
      assert.match(forbidden.body.error.message, /report:read/);
      assert.equal((await get(path, viewer.token)).status, 200, path);
    }
  });
});
