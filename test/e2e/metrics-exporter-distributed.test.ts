import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { budgetCounter } from "@gw/budgets";
import { type Bus, createBus, decodeJson, encodeJson, Streams, Subjects } from "@gw/bus";
import { toBudgets } from "@gw/config-store";
import { createRedisCounterStore } from "@gw/counters";
import type { PrismaClient } from "@gw/db";
import {
  histogramPercentile,
  latencyBucket,
  METRICS,
  minSpacing,
  type ResolvedIntegration,
  toStoredIntegration,
} from "@gw/metrics";
import { UsageRecord } from "@gw/proto";
import { seedProject } from "@gw/service-standalone";
import {
  type DecodedMetric,
  type FakeUpstream,
  type MetricReceivers,
  startFakeUpstream,
  startMetricReceivers,
  waitFor,
} from "@gw/testing";
import OpenAI from "openai";
import {
  type DistributedGateway,
  distributedEnv,
  startDistributedGateway,
} from "../support/distributed-gateway.js";

const env = distributedEnv();
const INTERVAL_MS = 1500;
const PROM_TOKEN = "prom-e2e-token-7f3a";
const WEBHOOK_SECRET = "whsec-e2e-91c2";
const SLUG = "metrics-e2e";
const MODEL = "fake-model";
const BUDGET = { metric: "calls", limit: 100, windowType: "period", windowSize: "monthly" };

/** Prometheus text -> `name{k=v,...}` (labels sorted) -> value. */
function parsePrometheus(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)$/.exec(line);
    assert.ok(match, `unparsable line ${line}`);
    const labels = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]),
    );
    series.set(id(match[1]!, labels), Number(match[3]));
  }
  return series;
}

function id(name: string, labels: Record<string, string>): string {
  const sorted = Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1));
  return `${name}{${sorted.map(([k, v]) => `${k}=${v}`).join(",")}}`;
}

/** What the metrics must say, computed from the usage rows the usage writer stored (one per record id). */
async function expectedFromRows(prisma: PrismaClient, projectId: string): Promise<Map<string, number>> {
  const rows = await prisma.usageRecord.findMany({ where: { projectId } });
  const expected = new Map<string, number>();
  const add = (key: string, amount: number) => expected.set(key, (expected.get(key) ?? 0) + amount);
  const costs = new Map<string, number>();
  const latency: Record<string, number> = {};
  for (const row of rows) {
    const labels = { project: SLUG, model: row.modelId || "none" };
    add(id(METRICS.requests.name, labels), 1);
    if (row.modelId) {
      add(id(METRICS.tokens.name, { ...labels, type: "input" }), row.inputTokens);
      add(id(METRICS.tokens.name, { ...labels, type: "output" }), row.outputTokens);
      if (["success", "error", "timeout"].includes(row.outcome)) {
        const bucket = String(latencyBucket(row.durationMs));
        latency[bucket] = (latency[bucket] ?? 0) + 1;
      }
    }
    if (row.costMicros !== null) {
      const key = id(METRICS.cost.name, labels);
      costs.set(key, (costs.get(key) ?? 0) + Number(row.costMicros));
    }
  }
  for (const [key, micros] of costs) expected.set(key, micros / 1_000_000);
  expected.set(id(METRICS.latencyP50.name, { project: SLUG }), histogramPercentile(latency, 0.5)!);
  expected.set(id(METRICS.latencyP95.name, { project: SLUG }), histogramPercentile(latency, 0.95)!);
  return expected;
}

function synthetic(projectId: string, overrides: Partial<UsageRecord> = {}): UsageRecord {
  return UsageRecord.fromPartial({
    id: `synthetic-${randomUUID()}`,
    timestamp: new Date().toISOString(),
    projectId,
    projectSlug: SLUG,
    tokenId: "",
    modelId: MODEL,
    provider: "custom",
    inputTokens: 1000,
    outputTokens: 2000,
    totalTokens: 3000,
    costMicros: 123_456,
    durationMs: 40,
    outcome: "success",
    status: 200,
    traceId: randomUUID(),
    callType: "completion",
    traceJson: "[]",
    endpoint: "chat",
    ...overrides,
  });
}

/** The value a receiver decoded for one series in one push. */
function decodedValue(
  metrics: DecodedMetric[],
  name: string,
  labels: Record<string, string>,
): number | undefined {
  return metrics.find(
    (metric) =>
      metric.name === name &&
      Object.entries(labels).every(([k, v]) => metric.labels[k] === v) &&
      Object.keys(metric.labels).length === Object.keys(labels).length,
  )?.value;
}

// Two metrics-exporter replicas on one NATS namespace (one shared durable) and one Redis, next to
// the distributed gateway: usage records made through the proxy plus records delivered again must
// give the same exact counts on both replicas, and each push interval must be pushed once.
describe("metrics exporter, distributed with two replicas", {
  skip: env.missing.length > 0 ? `needs ${env.missing.join(", ")}` : false,
}, () => {
  let gateway: DistributedGateway;
  let upstream: FakeUpstream;
  let receivers: MetricReceivers;
  let bus: Bus;
  let projectId: string;
  let token: string;
  let prometheusId: string;
  let successes = 0;

  before(async () => {
    upstream = await startFakeUpstream();
    receivers = await startMetricReceivers({ webhookSecret: WEBHOOK_SECRET });
    gateway = await startDistributedGateway(
      async (db, secretKey) => {
        const seeded = await seedProject(db.prisma, secretKey, {
          projectSlug: SLUG,
          modelId: MODEL,
          provider: "custom",
          baseUrl: upstream.baseUrl,
          upstreamModel: "gpt-fake-upstream",
          apiKey: "sk-upstream-secret",
          budgets: [BUDGET],
        });
        projectId = seeded.projectId;
        token = seeded.token;
        const prometheus: ResolvedIntegration = {
          id: "int_prom_e2e",
          name: "prometheus",
          type: "prometheus",
          enabled: true,
          settings: { authToken: PROM_TOKEN },
        };
        await db.prisma.integration.create({
          data: {
            id: prometheus.id,
            type: "prometheus",
            name: "prometheus",
            ...toStoredIntegration(prometheus, secretKey),
          },
        });
        prometheusId = prometheus.id;
      },
      {
        metricsExporters: 2,
        metricsExporterEnv: {
          METRICS_PUSH_INTERVAL_MS: String(INTERVAL_MS),
          // The Datadog site's API is the fake receiver.
          SERVICE_DATADOG_API_URL: receivers.datadog.url,
        },
      },
    );
    bus = await createBus({ natsUrl: env.NATS_URL!, namespace: gateway.busNamespace, name: "e2e" });
  });

  after(async () => {
    await bus?.close();
    await gateway?.stop();
    await receivers?.close();
    await upstream?.close();
  });

  const scrape = (url: string, auth: string | null = `Bearer ${PROM_TOKEN}`) =>
    fetch(`${url}/metrics`, auth ? { headers: { authorization: auth } } : {});

  /** The project's calls budget counter, read where the budget service keeps it. */
  async function budgetCalls(): Promise<number> {
    const counters = createRedisCounterStore({ url: env.REDIS_URL!, commandTimeoutMs: 2000 });
    try {
      const counter = budgetCounter(
        { level: "project", scopeId: projectId, name: SLUG, budget: toBudgets([BUDGET])[0]!, enforced: true },
        Date.now(),
      );
      const [value] = await counters.get([counter.key]);
      return value!;
    } finally {
      await counters.close();
    }
  }

  /** Both consumers of the usage stream have taken and acked everything published so far. */
  const drained = () =>
    waitFor(
      async () => {
        const [exporter, writer] = await Promise.all([
          bus.pending(Streams.USAGE.name, "metrics-exporter"),
          bus.pending(Streams.USAGE.name, "usage-writer"),
        ]);
        return exporter === 0 && writer === 0 ? true : undefined;
      },
      { timeoutMs: 30_000, what: "usage stream drained by metrics-exporter and usage-writer" },
    );

  it("guards the pull endpoint with the prometheus integration's token, and answers 404 without one", async () => {
    for (const url of gateway.metricsUrls) {
      const missing = await scrape(url, null);
      assert.equal(missing.status, 401);
      assert.equal(((await missing.json()) as { error: { code: string } }).error.code, "unauthenticated");
      assert.equal((await scrape(url, "Bearer not-the-token")).status, 401);
      const ok = await scrape(url);
      assert.equal(ok.status, 200);
      assert.match(ok.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
      assert.ok(!(await ok.text()).includes(PROM_TOKEN));
    }
    await gateway.db.prisma.integration.update({ where: { id: prometheusId }, data: { enabled: false } });
    try {
      const disabled = await scrape(gateway.metricsUrls[0]!);
      assert.equal(disabled.status, 404);
      assert.equal(((await disabled.json()) as { error: { code: string } }).error.code, "metrics_disabled");
    } finally {
      await gateway.db.prisma.integration.update({ where: { id: prometheusId }, data: { enabled: true } });
    }
  });

  it("counts proxy calls and redelivered records exactly once, identically on both replicas", async () => {
    const client = new OpenAI({
      apiKey: token,
      baseURL: `${gateway.url}/v1`,
      maxRetries: 0,
      timeout: 20_000,
    });
    for (let i = 0; i < 5; i++) {
      upstream.setBehaviour({ content: `answer number ${i} has some words`, latencyMs: 20 * i });
      await client.chat.completions.create({
        model: "x",
        messages: [{ role: "user", content: `question ${i}` }],
      });
      successes++;
    }
    upstream.setBehaviour({ status: 500 });
    await client.chat.completions
      .create({ model: "x", messages: [{ role: "user", content: "fail" }] })
      .catch(() => {});
    upstream.setBehaviour({});
    await waitFor(
      async () =>
        (await gateway.db.prisma.usageRecord.count({ where: { projectId } })) >= 6 ? true : undefined,
      { timeoutMs: 20_000, what: "six usage rows" },
    );
    await drained();

    // Every record published so far, copied through a reader of our own, then published again
    // twice: once without a message id and once with another one, so the bus stores both (its
    // duplicate window only drops repeats of one message id): the exporters see each id three times.
    const copies: Uint8Array[] = [];
    const reader = await bus.consume(
      { stream: Streams.USAGE.name, durable: "e2e-copy", filterSubject: Subjects.usageRecord },
      async (message) => {
        copies.push(message.data);
      },
    );
    await waitFor(
      async () => ((await bus.pending(Streams.USAGE.name, "e2e-copy")) === 0 ? true : undefined),
      {
        timeoutMs: 10_000,
        what: "copies of the usage records",
      },
    );
    await reader.stop();
    assert.ok(copies.length >= 6, `copied ${copies.length}`);
    for (const data of copies) {
      const record = UsageRecord.fromJSON(decodeJson(data));
      await bus.publish(Subjects.usageRecord, data);
      await bus.publish(Subjects.usageRecord, data, { msgId: `${record.id}-again` });
    }
    // A record only the bus knows, delivered three times.
    const extra = synthetic(projectId);
    for (let i = 0; i < 3; i++)
      await bus.publish(Subjects.usageRecord, encodeJson(UsageRecord.toJSON(extra)));
    await drained();

    const texts = await Promise.all(gateway.metricsUrls.map(async (url) => (await scrape(url)).text()));
    assert.equal(texts[0], texts[1], "both replicas render the same state");
    const got = parsePrometheus(texts[0]!);
    const expected = await expectedFromRows(gateway.db.prisma, projectId);
    assert.equal(
      expected.get(id(METRICS.requests.name, { project: SLUG, model: MODEL })),
      7,
      "6 proxy records + 1 synthetic, each once",
    );
    for (const [key, value] of expected) assert.equal(got.get(key), value, key);
    const ours = [...got.keys()].filter((key) => key.includes(`project=${SLUG}`) && !key.includes("budget"));
    assert.deepEqual(ours.sort(), [...expected.keys()].sort(), "no series beyond the expected ones");
    // The project's calls budget (limit 100), as the budget service counted it (the bus-only
    // records never touched it).
    const used = await budgetCalls();
    assert.ok(used >= successes, `budget counter ${used}`);
    assert.equal(got.get(id(METRICS.budgetUsed.name, { project: SLUG })), used / 100);
  });

  it("pushes every format once per interval, with the values of the shared state", async () => {
    const push: ResolvedIntegration[] = [
      {
        id: "int_otel_e2e",
        name: "otel",
        type: "otel",
        enabled: true,
        settings: {
          endpoint: receivers.otel.url,
          protocol: "http/protobuf",
          headers: { "X-Api-Key": "otel-key-e2e" },
        },
      },
      {
        id: "int_dd_e2e",
        name: "datadog",
        type: "datadog",
        enabled: true,
        settings: { apiKey: "dd-key-e2e", site: "datadoghq.eu" },
      },
      {
        id: "int_graf_e2e",
        name: "grafana",
        type: "grafana",
        enabled: true,
        settings: {
          url: `${receivers.grafana.url}/api/prom/push`,
          username: "12345",
          apiKey: "graf-key-e2e",
        },
      },
      {
        id: "int_influx_e2e",
        name: "influxdb",
        type: "influxdb",
        enabled: true,
        settings: { url: receivers.influxdb.url, token: "influx-token-e2e", org: "acme", bucket: "gateway" },
      },
      {
        id: "int_hook_e2e",
        name: "webhook",
        type: "webhook",
        enabled: true,
        settings: { url: `${receivers.webhook.url}/hook`, secret: WEBHOOK_SECRET, headers: {} },
      },
    ];
    for (const integration of push) {
      await gateway.db.prisma.integration.create({
        data: {
          id: integration.id,
          type: integration.type,
          name: integration.name,
          ...toStoredIntegration(integration, gateway.secretKey),
        },
      });
    }
    const all = [receivers.otel, receivers.datadog, receivers.grafana, receivers.influxdb, receivers.webhook];
    await Promise.all(all.map((receiver) => receiver.waitForPushes(2, 30_000)));

    const expected = await expectedFromRows(gateway.db.prisma, projectId);
    const requests = { project: SLUG, model: MODEL };
    const inputTokens = { ...requests, type: "input" };
    const cumulative = [receivers.otel, receivers.grafana, receivers.influxdb, receivers.webhook];
    for (const receiver of cumulative) {
      const last = receiver.pushes.at(-1)!;
      assert.equal(last.error, undefined, last.error);
      assert.equal(
        decodedValue(last.metrics, METRICS.requests.name, requests),
        expected.get(id(METRICS.requests.name, requests)),
      );
      assert.equal(
        decodedValue(last.metrics, METRICS.tokens.name, inputTokens),
        expected.get(id(METRICS.tokens.name, inputTokens)),
      );
      assert.equal(
        decodedValue(last.metrics, METRICS.latencyP95.name, { project: SLUG }),
        expected.get(id(METRICS.latencyP95.name, { project: SLUG })),
      );
      assert.equal(
        decodedValue(last.metrics, METRICS.budgetUsed.name, { project: SLUG }),
        (await budgetCalls()) / 100,
      );
    }
    const hook = receivers.webhook.pushes.at(-1)!;
    assert.equal(hook.signatureValid, true);
    assert.equal(receivers.grafana.pushes.at(-1)!.auth.basic?.username, "12345");
    assert.equal(receivers.influxdb.pushes.at(-1)!.auth.token, "influx-token-e2e");
    assert.equal(receivers.datadog.pushes.at(-1)!.auth.apiKey, "dd-key-e2e");
    assert.equal(receivers.otel.pushes.at(-1)!.headers["x-api-key"], "otel-key-e2e");

    // Datadog counts are increases since the previous push (the first push sends 0): one more
    // record, published three times, must add exactly 1 request over all Datadog pushes.
    const more = synthetic(projectId);
    for (let i = 0; i < 3; i++) await bus.publish(Subjects.usageRecord, encodeJson(UsageRecord.toJSON(more)));
    await drained();
    const datadogRequests = () =>
      receivers.datadog.pushes.reduce(
        (sum, p) => sum + (decodedValue(p.metrics, METRICS.requests.name, requests) ?? 0),
        0,
      );
    await waitFor(async () => (datadogRequests() === 1 ? true : undefined), {
      timeoutMs: 15_000,
      what: "the extra request in Datadog's counts",
    });
    const seen = receivers.datadog.pushes.length;
    await receivers.datadog.waitForPushes(seen + 1, 15_000);
    assert.equal(datadogRequests(), 1, "no increase counted twice");

    // Two replicas tick every interval; the pushes of each integration stay an interval apart.
    for (const receiver of [receivers.webhook, receivers.otel]) {
      const times = receiver.pushes.map((p) => p.metrics[0]?.timestampMs ?? 0).filter((t) => t > 0);
      assert.ok(times.length >= 3, `${times.length} pushes`);
      for (let i = 1; i < times.length; i++) {
        const gap = times[i]! - times[i - 1]!;
        assert.ok(gap >= minSpacing(INTERVAL_MS) - 100, `pushes ${gap} ms apart (interval ${INTERVAL_MS})`);
      }
    }
    const rows = await gateway.db.prisma.integration.findMany({
      where: { id: { in: push.map((p) => p.id) } },
    });
    for (const row of rows) assert.equal(row.lastPushOk, true, `${row.type}: ${row.lastPushMessage}`);
  });

  it("records a failing receiver's answer on the integration, then recovers", async () => {
    receivers.webhook.fail(500, "receiver is down for maintenance");
    try {
      const row = await waitFor(
        async () => {
          const found = await gateway.db.prisma.integration.findUnique({ where: { id: "int_hook_e2e" } });
          return found?.lastPushOk === false ? found : undefined;
        },
        { timeoutMs: 15_000, what: "a failed webhook push on the row" },
      );
      assert.match(row.lastPushMessage ?? "", /HTTP 500/);
      assert.ok(!(row.lastPushMessage ?? "").includes(WEBHOOK_SECRET));
    } finally {
      receivers.webhook.reset();
    }
    await waitFor(
      async () => {
        const found = await gateway.db.prisma.integration.findUnique({ where: { id: "int_hook_e2e" } });
        return found?.lastPushOk === true ? true : undefined;
      },
      { timeoutMs: 15_000, what: "the webhook pushing again" },
    );
  });
});
