import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type CounterStore, createMemoryCounterStore } from "@gw/counters";
import { createDatabase, type Database } from "@gw/db";
import { createLogger } from "@gw/logger";
import { type ResolvedIntegration, toStoredIntegration } from "@gw/metrics";
import { type MetricReceivers, startMetricReceivers } from "@gw/testing";
import { buildMetricsServer } from "../src/http.js";
import { startPushScheduler } from "../src/push-scheduler.js";

const logger = createLogger({ name: "metrics-exporter-test", level: "silent" });
const secretKey = randomBytes(32);

async function addIntegration(db: Database, integration: ResolvedIntegration): Promise<void> {
  await db.prisma.integration.create({
    data: {
      id: integration.id,
      type: integration.type,
      name: integration.name,
      enabled: integration.enabled,
      ...toStoredIntegration(integration, secretKey),
    },
  });
}

describe("metrics-exporter HTTP port", () => {
  let db: Database;
  let counters: CounterStore;
  before(async () => {
    db = await createDatabase();
    await db.migrate();
    counters = createMemoryCounterStore();
  });
  after(async () => {
    await db.close();
  });

  it("answers 404 without a prometheus integration, serves an open one, and 503 when the state is unreadable", async () => {
    const app = buildMetricsServer({ prisma: db.prisma, counters, secretKey, logger, version: "0.0.0" });
    try {
      const health = await app.inject({ url: "/health" });
      assert.equal(health.statusCode, 200);
      assert.equal(health.json().status, "ok");

      const none = await app.inject({ url: "/metrics" });
      assert.equal(none.statusCode, 404);
      assert.equal(none.json().error.code, "metrics_disabled");

      await addIntegration(db, {
        id: "int_open",
        name: "open",
        type: "prometheus",
        enabled: true,
        settings: {},
      });
      const open = await app.inject({ url: "/metrics" });
      assert.equal(open.statusCode, 200);
      assert.match(String(open.headers["content-type"]), /^text\/plain; version=0\.0\.4/);
      assert.match(open.body, /^# TYPE service_requests_total counter$/m);

      const unknown = await app.inject({ url: "/nothing-here" });
      assert.equal(unknown.statusCode, 404);
      assert.equal(unknown.json().error.type, "not_found");

      await counters.close();
      const down = await app.inject({ url: "/metrics" });
      assert.equal(down.statusCode, 503);
      assert.equal(down.json().error.code, "metrics_unavailable");
    } finally {
      await app.close();
      await db.prisma.integration.deleteMany({});
    }
  });
});

describe("push scheduler", () => {
  let db: Database;
  let counters: CounterStore;
  let receivers: MetricReceivers;
  before(async () => {
    db = await createDatabase();
    await db.migrate();
    counters = createMemoryCounterStore();
    receivers = await startMetricReceivers();
  });
  after(async () => {
    await counters.close();
    await receivers.close();
    await db.close();
  });

  it("never overlaps its rounds: a slow receiver delays the next tick instead of stacking pushes", async () => {
    await addIntegration(db, {
      id: "int_slow_hook",
      name: "slow",
      type: "webhook",
      enabled: true,
      settings: { url: `${receivers.webhook.url}/hook`, headers: {} },
    });
    // Disabled and pull-based integrations are never pushed.
    await addIntegration(db, {
      id: "int_off",
      name: "off",
      type: "webhook",
      enabled: false,
      settings: { url: `${receivers.webhook.url}/off`, headers: {} },
    });
    receivers.webhook.delay(400);
    const arrivals: number[] = [];
    const scheduler = startPushScheduler({ prisma: db.prisma, counters, secretKey, logger, intervalMs: 100 });
    try {
      while (arrivals.length < 3) {
        const count = receivers.webhook.pushes.length;
        await receivers.webhook.waitForPushes(count + 1, 5_000);
        arrivals.push(Date.now());
      }
    } finally {
      await scheduler.stop();
    }
    for (let i = 1; i < arrivals.length; i++)
      assert.ok(arrivals[i]! - arrivals[i - 1]! >= 350, `pushes ${arrivals[i]! - arrivals[i - 1]!} ms apart`);
    assert.ok(receivers.webhook.pushes.every((push) => push.path === "/hook"));
    const row = await db.prisma.integration.findUniqueOrThrow({ where: { id: "int_slow_hook" } });
    assert.equal(row.lastPushOk, true);
    // Stopped: no push after stop() returned.
    const pushed = receivers.webhook.pushes.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receivers.webhook.pushes.length, pushed);
  });
});
