import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, seedProject, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, freePort, startFakeUpstream, waitFor } from "@gw/testing";
import OpenAI from "openai";
import { testServiceContext } from "../support/silent-context.js";

// Budgets fail closed: with the counter store unreachable, a request under a budget is refused with
// 503 within the command timeout, never sent upstream unchecked, and still recorded.
describe("budgets with Redis unreachable", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-fail-closed-"));
  const context = testServiceContext("standalone");
  let upstream: FakeUpstream;
  let client: OpenAI;
  let handle: Awaited<ReturnType<typeof startStandalone>>;

  before(async () => {
    upstream = await startFakeUpstream();
    const closedPort = await freePort();
    const config = readStandaloneConfig({
      SERVICE_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      REDIS_URL: `redis://127.0.0.1:${closedPort}`,
      REDIS_COMMAND_TIMEOUT_MS: "200",
    });
    handle = await startStandalone(config, context);
    const seeded = await seedProject(handle.db.prisma, handle.secretKey, {
      projectSlug: "guarded",
      modelId: "fake-model",
      provider: "custom",
      baseUrl: upstream.baseUrl,
      budgets: [
        { metric: "calls", limit: 100, windowType: "period", windowSize: "daily", onExhausted: "block" },
      ],
    });
    client = new OpenAI({ apiKey: seeded.token, baseURL: `${handle.url}/v1`, maxRetries: 0 });
  });

  after(async () => {
    await context.shutdown.run("test done");
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("answers 503 budget_unavailable quickly and sends nothing upstream", async () => {
    const started = Date.now();
    const failure = await client.chat.completions
      .create(
        { model: "x", messages: [{ role: "user", content: "hi" }] },
        { headers: { "x-service-trace": "1" } },
      )
      .catch((error: unknown) => error);
    const elapsed = Date.now() - started;
    assert.ok(failure instanceof OpenAI.APIError);
    assert.equal(failure.status, 503);
    assert.equal((failure.error as { code?: string }).code, "budget_unavailable");
    assert.ok(elapsed < 2000, `refused after ${elapsed} ms`);
    assert.equal(upstream.requests.length, 0);
    const row = await waitFor(() =>
      handle.db.prisma.usageRecord
        .findFirst({ where: { traceId: failure.headers?.get("x-service-trace-id") ?? "" } })
        .then((r) => r ?? undefined),
    );
    assert.equal(row.outcome, "error");
    assert.equal(row.status, 503);
  });
});
