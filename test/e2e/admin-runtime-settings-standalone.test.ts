import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, startFakeUpstream } from "@gw/testing";
import { type AdminClient, adminClient } from "../support/admin-client.js";
import { testServiceContext } from "../support/silent-context.js";

// Settings changed through the management API apply to the running gateway: the provider timeout
// of projects without their own, and the log level.
describe("runtime settings (standalone)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-runtime-settings-"));
  const context = testServiceContext("standalone");
  let upstream: FakeUpstream;
  let handle: Awaited<ReturnType<typeof startStandalone>>;
  let api: AdminClient;
  let admin: string;
  let token: string;
  let slug: string;

  before(async () => {
    upstream = await startFakeUpstream();
    handle = await startStandalone(
      readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
      context,
    );
    api = adminClient(handle.url);
    admin = (
      await api.post<{ token: string }>("/setup/first-admin", {
        email: "a@example.com",
        password: "long enough pw",
      })
    ).body.token;
    await api.post("/models", { id: "slow", provider: "custom", baseUrl: upstream.baseUrl }, admin);
    slug = (await api.post<{ slug: string }>("/projects", { name: "Slow", models: ["slow"] }, admin)).body
      .slug;
    token = (await api.post<{ token: string }>(`/projects/${slug}/tokens`, { name: "t" }, admin)).body.token;
  });

  after(async () => {
    await context.shutdown.run("test done");
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const chat = () =>
    fetch(`${handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "hi" }] }),
    });

  it("applies defaultTimeoutMs to projects without their own, and a project's own still wins", async () => {
    // undici checks header timeouts on a coarse timer (up to about a second late): a 2.5 s upstream
    // against a 0.2 s limit times out for sure.
    upstream.setBehaviour({ latencyMs: 2500 });
    try {
      assert.equal((await chat()).status, 200);
      assert.equal((await api.put("/settings", { defaultTimeoutMs: 200 }, admin)).status, 200);
      const timedOut = await chat();
      assert.equal(timedOut.status, 504);
      assert.equal(((await timedOut.json()) as { error: { code: string } }).error.code, "timeout");
      assert.equal((await api.put(`/projects/${slug}`, { defaultTimeoutMs: 5_000 }, admin)).status, 200);
      assert.equal((await chat()).status, 200);
    } finally {
      upstream.setBehaviour({});
    }
  });

  it("applies logLevel to the running logger", async () => {
    assert.equal((await api.put("/settings", { logLevel: "debug" }, admin)).status, 200);
    assert.equal(context.logger.level, "debug");
    assert.equal((await api.put("/settings", { logLevel: "error" }, admin)).status, 200);
    assert.equal(context.logger.level, "error");
  });
});
