import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createShutdown } from "@gw/lifecycle";
import { createLogger } from "@gw/logger";
import { readStandaloneConfig, startStandalone } from "@gw/service-standalone";
import { type FakeUpstream, startFakeUpstream, waitFor } from "@gw/testing";
import { adminClient } from "../support/admin-client.js";

const CANARY = {
  adminPassword: "canary-admin-pw-5b1e",
  wrongPassword: "canary-wrong-pw-77c2",
  newPassword: "canary-new-pw-0a9f",
  upstreamKey: "sk-canary-upstream-3d4c",
  rotatedKey: "sk-canary-rotated-8e21",
  prometheusToken: "prom-canary-token-4f1a",
  datadogKey: "dd-canary-key-9b3e",
  webhookSecret: "whsec-canary-2c7d",
  webhookHeader: "wh-canary-header-6e0b",
  rotatedWebhookSecret: "whsec-canary-rotated-1d8f",
};

// Secrets never appear in responses, logs or audit entries: every secret the management API and
// the proxy handle is a canary, the gateway logs at trace level into memory, and nothing may leak.
describe("secrets canary: responses, logs, audit", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-canary-"));
  const lines: string[] = [];
  const logger = createLogger({
    name: "canary",
    level: "trace",
    destination: { write: (line: string) => void lines.push(line) },
  });
  const context = {
    logger,
    shutdown: createShutdown({ logger, timeoutMs: 10_000, exit: () => {} }),
    version: "0.0.0-test",
  };
  let handle: Awaited<ReturnType<typeof startStandalone>>;
  let upstream: FakeUpstream;
  const answers: string[] = [];
  const secrets: string[] = Object.values(CANARY);

  before(async () => {
    upstream = await startFakeUpstream();
    handle = await startStandalone(
      readStandaloneConfig({ SERVICE_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1" }),
      context,
    );
  });

  after(async () => {
    await context.shutdown.run("test done");
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("leaks no secret anywhere", async () => {
    const api = adminClient(handle.url);
    const keep = <T extends { body: unknown }>(answer: T) => {
      answers.push(JSON.stringify(answer.body));
      return answer;
    };
    // The session tokens are given once, in this answer: it is the one answer not checked.
    const setup = await api.post<{ token: string; refreshToken: string }>("/setup/first-admin", {
      email: "admin@example.com",
      password: CANARY.adminPassword,
    });
    const admin = setup.body.token;
    secrets.push(setup.body.refreshToken, admin);
    keep(await api.post("/auth/login", { email: "admin@example.com", password: CANARY.wrongPassword }));
    keep(await api.post("/auth/login", { email: "nobody@example.com", password: CANARY.wrongPassword }));
    keep(
      await api.post(
        "/models",
        { id: "canary-model", provider: "custom", baseUrl: upstream.baseUrl, apiKey: CANARY.upstreamKey },
        admin,
      ),
    );
    keep(await api.post("/models/canary-model/apikey", { apiKey: CANARY.rotatedKey }, admin));
    keep(await api.get("/models/canary-model", admin));
    keep(await api.post("/models", { id: "bad model", provider: "nope", apiKey: CANARY.upstreamKey }, admin));
    const project = keep(
      await api.post<{ slug: string }>("/projects", { name: "Canary", models: ["canary-model"] }, admin),
    );
    const token = await api.post<{ token: string }>(
      `/projects/${project.body.slug}/tokens`,
      { name: "ci" },
      admin,
    );
    secrets.push(token.body.token);
    keep(await api.get(`/projects/${project.body.slug}/tokens`, admin));
    keep(await api.get(`/projects/${project.body.slug}`, admin));
    keep(
      await api.put("/me", { currentPassword: CANARY.adminPassword, newPassword: CANARY.newPassword }, admin),
    );
    keep(
      await api.put("/me", { currentPassword: CANARY.wrongPassword, newPassword: CANARY.newPassword }, admin),
    );
    // Integrations: secrets in, masked nulls out; a failing test push and a refused scrape are logged.
    const prometheus = keep(
      await api.post<{ id: string }>(
        "/integrations",
        { type: "prometheus", authToken: CANARY.prometheusToken },
        admin,
      ),
    );
    keep(await api.post("/integrations", { type: "datadog", apiKey: CANARY.datadogKey }, admin));
    const hook = keep(
      await api.post<{ id: string }>(
        "/integrations",
        {
          type: "webhook",
          url: "http://127.0.0.1:1/hook",
          secret: CANARY.webhookSecret,
          headers: { "X-Api-Key": CANARY.webhookHeader },
        },
        admin,
      ),
    );
    keep(
      await api.call("PATCH", `/integrations/${hook.body.id}`, {
        token: admin,
        body: { secret: CANARY.rotatedWebhookSecret, headers: { "X-Api-Key": null } },
      }),
    );
    keep(
      await api.call("PATCH", `/integrations/${hook.body.id}`, { token: admin, body: { type: "datadog" } }),
    );
    keep(await api.post(`/integrations/${hook.body.id}/test`, undefined, admin));
    keep(await api.post(`/integrations/${prometheus.body.id}/test`, undefined, admin));
    keep(await api.get("/integrations", admin));
    const scrape = await fetch(`${handle.url}/api/metrics`, {
      headers: { authorization: `Bearer ${CANARY.prometheusToken}x` },
    });
    assert.equal(scrape.status, 401);
    answers.push(await scrape.text());
    // The proxy with the project token: the upstream gets the model's key, the logs never do.
    const chat = await fetch(`${handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token.body.token}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "any", messages: [{ role: "user", content: "hi" }] }),
    });
    assert.equal(chat.status, 200);
    answers.push(await chat.text());
    assert.equal(upstream.requests.at(-1)?.headers.authorization, `Bearer ${CANARY.rotatedKey}`);
    // A bad token and a malformed body on the proxy are logged as refusals: without the token.
    await fetch(`${handle.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token.body.token}x`, "content-type": "application/json" },
      body: "{",
    });

    const audit = await waitFor(
      async () => {
        const rows = await handle.db.prisma.auditEntry.findMany();
        const done = ["profile:update", "integration:test"].every((action) =>
          rows.some((r) => r.action === action),
        );
        return done ? rows : undefined;
      },
      { what: "audit rows" },
    );
    const places = { responses: answers.join("\n"), logs: lines.join(""), audit: JSON.stringify(audit) };
    // The refusals above were logged (so the log check reads real lines, not an empty log).
    assert.ok(
      lines.some((line) => line.includes("request refused")),
      `refusals logged (${lines.length} lines)`,
    );
    for (const [place, text] of Object.entries(places))
      for (const secret of secrets)
        assert.equal(text.includes(secret), false, `${place} hold a secret (${secret.slice(0, 12)}...)`);
  });
});
