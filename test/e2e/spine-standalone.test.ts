import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, seedProject, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import OpenAI from "openai";
import { testServiceContext } from "../support/silent-context.js";
import {
  checkChatCompletionRecorded,
  checkHealth,
  checkRefusals,
  checkStreamingRecorded,
  checkUpstreamFailureRecorded,
  type SpineTarget,
  sdk,
} from "../support/spine-checks.js";

// Standalone mode as `npm start` runs it: one process, PGlite, in-process bus and counters, data in
// a data directory. The URLs are cleared so this suite is always the embedded one.
describe("spine, standalone mode", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-standalone-"));
  const context = testServiceContext("standalone");
  let upstream: FakeUpstream;
  let target: SpineTarget;

  before(async () => {
    upstream = await startFakeUpstream();
    const config = readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" });
    const handle = await startStandalone(config, context);
    const seeded = await seedProject(handle.db.prisma, handle.secretKey, {
      projectSlug: "spine",
      modelId: "fake-model",
      provider: "custom",
      baseUrl: upstream.baseUrl,
      upstreamModel: "gpt-fake-upstream",
      apiKey: "sk-upstream-secret",
    });
    target = {
      url: handle.url,
      token: seeded.token,
      prisma: handle.db.prisma,
      upstream,
      upstreamKey: "sk-upstream-secret",
      upstreamModel: "gpt-fake-upstream",
    };
  });

  after(async () => {
    await context.shutdown.run("test done");
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers /health", () => checkHealth(target));
  it("serves a chat completion and records its usage row", () => checkChatCompletionRecorded(target));
  it("streams and records the stream's usage", () => checkStreamingRecorded(target));
  it("refuses bad tokens and bad bodies in the envelope", () => checkRefusals(target));
  it("records upstream failures", () => checkUpstreamFailureRecorded(target));

  it("blocks with 503 budget_exceeded once a calls budget is spent, and records it", async () => {
    const handle = target.prisma;
    const seeded = await seedProject(handle, (await import("node:crypto")).randomBytes(32), {
      projectSlug: "budgeted",
      modelId: "fake-budget-model",
      provider: "custom",
      baseUrl: upstream.baseUrl,
      budgets: [
        { metric: "calls", limit: 2, windowType: "period", windowSize: "daily", onExhausted: "block" },
      ],
    });
    const client = sdk(target, seeded.token);
    const ask = () =>
      client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "hi" }] });
    await ask();
    await ask();
    const third = await ask().catch((error: unknown) => error);
    assert.ok(third instanceof OpenAI.APIError);
    assert.equal(third.status, 503);
    assert.deepEqual(
      { type: (third.error as { type?: string }).type, code: (third.error as { code?: string }).code },
      { type: "budget_exceeded", code: "budget_exceeded" },
    );
    const rows = await waitFor(async () => {
      const found = await handle.usageRecord.findMany({ where: { projectId: seeded.projectId } });
      return found.length === 3 ? found : undefined;
    });
    assert.deepEqual(rows.map((r) => r.outcome).sort(), ["budget_exceeded", "success", "success"]);
  });

  it("answers 504 and records a timeout when the provider is slower than the project timeout", async () => {
    const project = await target.prisma.project.update({
      where: { slug: "spine" },
      data: { defaultTimeoutMs: 150 },
    });
    assert.equal(project.defaultTimeoutMs, 150);
    // Config is cached for a few seconds; wait until the new timeout is in force.
    upstream.setBehaviour({ latencyMs: 1000 });
    const failure = await waitFor(
      async () => {
        const error = await sdk(target)
          .chat.completions.create(
            { model: "x", messages: [{ role: "user", content: "slow" }] },
            { headers: { "x-service-trace": "1" } },
          )
          .catch((e: unknown) => e);
        return error instanceof OpenAI.APIError && error.status === 504 ? error : undefined;
      },
      { timeoutMs: 20_000, intervalMs: 200, what: "a 504" },
    );
    upstream.setBehaviour({});
    const row = await waitFor(() =>
      target.prisma.usageRecord
        .findFirst({ where: { traceId: failure.headers?.get("x-service-trace-id") ?? "" } })
        .then((r) => r ?? undefined),
    );
    assert.equal(row.outcome, "timeout");
    assert.equal(row.status, 504);
  });
});
