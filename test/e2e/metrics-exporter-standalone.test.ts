import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { METRICS, type ResolvedIntegration, toStoredIntegration } from "@gw/metrics";
import {
  readStandaloneConfig,
  type StandaloneHandle,
  seedProject,
  startStandalone,
} from "@gw/service-standalone";
import {
  type FakeUpstream,
  type MetricReceivers,
  startFakeUpstream,
  startMetricReceivers,
  waitFor,
} from "@gw/testing";
import { testServiceContext } from "../support/silent-context.js";

const SLUG = "standalone-metrics";
const MODEL = "fake-model";

// Standalone runs the exporter's consumer (in-process bus, its own durable) and push scheduler in
// the gateway's process: a call through the proxy reaches a push receiver without any API call.
describe("metrics exporter in standalone: scheduled pushes", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "gw-metrics-standalone-"));
  const context = testServiceContext("standalone");
  let handle: StandaloneHandle;
  let upstream: FakeUpstream;
  let receivers: MetricReceivers;
  let token: string;

  before(async () => {
    upstream = await startFakeUpstream();
    receivers = await startMetricReceivers({ webhookSecret: "whsec-standalone-1" });
    handle = await startStandalone(
      readStandaloneConfig({
        SERVICE_DATA_DIR: dataDir,
        PORT: "0",
        HOST: "127.0.0.1",
        METRICS_PUSH_INTERVAL_MS: "300",
      }),
      context,
    );
    const seeded = await seedProject(handle.db.prisma, handle.secretKey, {
      projectSlug: SLUG,
      modelId: MODEL,
      provider: "custom",
      baseUrl: upstream.baseUrl,
      apiKey: "sk-upstream",
    });
    token = seeded.token;
  });

  after(async () => {
    await context.shutdown.run("test done");
    await receivers?.close();
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("pushes what the proxy counted to an enabled webhook integration, signed", async () => {
    const hook: ResolvedIntegration = {
      id: "int_standalone_hook",
      name: "hook",
      type: "webhook",
      enabled: true,
      settings: { url: `${receivers.webhook.url}/metrics`, secret: "whsec-standalone-1", headers: {} },
    };
    await handle.db.prisma.integration.create({
      data: { id: hook.id, type: "webhook", name: "hook", ...toStoredIntegration(hook, handle.secretKey) },
    });
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${handle.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ model: MODEL, messages: [{ role: "user", content: `hello ${i}` }] }),
      });
      assert.equal(response.status, 200, await response.text());
    }
    const push = await waitFor(
      () =>
        receivers.webhook.pushes.find((p) =>
          p.metrics.some(
            (m) =>
              m.name === METRICS.requests.name &&
              m.labels.project === SLUG &&
              m.labels.model === MODEL &&
              m.value === 2,
          ),
        ),
      { timeoutMs: 15_000, what: "a scheduled push with both requests" },
    );
    assert.equal(push.signatureValid, true);
    const row = await waitFor(
      async () => {
        const found = await handle.db.prisma.integration.findUnique({ where: { id: hook.id } });
        return found?.lastPushOk ? found : undefined;
      },
      { what: "the push recorded on the integration" },
    );
    assert.match(row.lastPushMessage ?? "", /pushed/);
  });
});
