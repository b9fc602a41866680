import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { type DecodedMetric, freePort, type MetricReceivers, startMetricReceivers } from "@gw/testing";
import { fixtureSnapshot } from "./formats/snapshot-fixture.js";
import type { ResolvedIntegration } from "./integration-types.js";
import { redact, sendPush } from "./push.js";

const snapshot = fixtureSnapshot();
const at = snapshot.at.getTime();

function integration<T extends ResolvedIntegration["type"]>(
  type: T,
  settings: Extract<ResolvedIntegration, { type: T }>["settings"],
): ResolvedIntegration {
  return { id: `int_${type}`, name: type, type, enabled: true, settings } as ResolvedIntegration;
}

function seriesValue(
  metrics: DecodedMetric[],
  name: string,
  labels: Record<string, string>,
): number | undefined {
  return metrics.find((m) => m.name === name && JSON.stringify(m.labels) === JSON.stringify(labels))?.value;
}

describe("metrics push: every type to its fake receiver, decoded natively", () => {
  let receivers: MetricReceivers;
  before(async () => {
    receivers = await startMetricReceivers({ webhookSecret: "whsec-1" });
  });
  after(async () => {
    await receivers.close();
  });
  beforeEach(() => {
    for (const receiver of [
      receivers.otel,
      receivers.datadog,
      receivers.grafana,
      receivers.influxdb,
      receivers.webhook,
    ])
      receiver.reset();
    receivers.webhook.setSecret("whsec-1");
  });

  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`otel ${protocol}: POST /v1/metrics with the integration's headers`, async () => {
      const result = await sendPush(
        integration("otel", {
          endpoint: receivers.otel.url,
          protocol,
          headers: { "x-api-key": "otel-key-1" },
        }),
        snapshot,
      );
      assert.deepEqual(result, { ok: true, status: 200, message: result.message });
      assert.match(result.message, /pushed 9 series/);
      const [push] = receivers.otel.pushes;
      assert.ok(push);
      assert.equal(push.path, "/v1/metrics");
      assert.equal(push.headers["x-api-key"], "otel-key-1");
      assert.equal(push.resource?.["service.name"], "llm-gateway");
      assert.equal(
        seriesValue(push.metrics, "service_requests_total", { project: "acme", model: "gpt-4o" }),
        10,
      );
      assert.equal(
        seriesValue(push.metrics, "service_tokens_total", {
          type: "input",
          project: "acme",
          model: "gpt-4o",
        }),
        1200,
      );
      const counter = push.metrics.find((m) => m.name === "service_requests_total");
      assert.equal(counter?.monotonic, true);
      assert.equal(counter?.temporality, "cumulative");
      assert.equal(counter?.startTimeMs, snapshot.startedAt.getTime());
      assert.equal(counter?.timestampMs, at);
    });
  }

  it("datadog: /api/v2/series with DD-API-KEY; counts are deltas since the previous push", async () => {
    const dd = integration("datadog", { apiKey: "dd-key-1", site: "datadoghq.eu" });
    const options = { datadogApiUrl: receivers.datadog.url };
    assert.equal((await sendPush(dd, snapshot, options)).status, 202);
    const next = {
      ...snapshot,
      at: new Date(at + 60_000),
      samples: snapshot.samples.map((s) => ({ ...s, value: s.type === "counter" ? s.value + 2 : s.value })),
    };
    const result = await sendPush(dd, next, { ...options, previous: snapshot });
    assert.equal(result.ok, true);
    const [first, second] = receivers.datadog.pushes;
    assert.equal(first?.path, "/api/v2/series");
    assert.equal(first?.auth.apiKey, "dd-key-1");
    assert.equal(
      seriesValue(first?.metrics ?? [], "service_requests_total", { project: "acme", model: "gpt-4o" }),
      0,
    );
    const requests = second?.metrics.find((m) => m.name === "service_requests_total");
    assert.deepEqual(requests, {
      name: "service_requests_total",
      labels: { project: "acme", model: "gpt-4o" },
      value: 2,
      type: "count",
      timestampMs: Math.floor((at + 60_000) / 1000) * 1000,
      intervalS: 60,
    });
    assert.equal(seriesValue(second?.metrics ?? [], "service_budget_used_ratio", { project: "acme" }), 0.42);
    assert.equal(second?.metrics.find((m) => m.name === "service_budget_used_ratio")?.type, "gauge");
  });

  it("grafana: remote write (snappy protobuf) with basic auth to the URL as given", async () => {
    const result = await sendPush(
      integration("grafana", {
        url: `${receivers.grafana.url}/api/prom/push`,
        username: "4242",
        apiKey: "glc-key-1",
      }),
      snapshot,
    );
    assert.deepEqual([result.ok, result.status], [true, 204]);
    const [push] = receivers.grafana.pushes;
    assert.equal(push?.path, "/api/prom/push");
    assert.deepEqual(push?.auth.basic, { username: "4242", password: "glc-key-1" });
    assert.equal(push?.headers["x-prometheus-remote-write-version"], "0.1.0");
    assert.equal(seriesValue(push?.metrics ?? [], "service_requests_total", { project: "acme" }), 2);
    assert.equal(
      seriesValue(push?.metrics ?? [], "service_cost_usd_total", { model: "gpt-4o", project: "acme" }),
      0.0125,
    );
    assert.ok(push?.metrics.every((m) => m.timestampMs === at));
  });

  it("influxdb: /api/v2/write?org&bucket&precision=ms with a Token", async () => {
    const result = await sendPush(
      integration("influxdb", {
        url: receivers.influxdb.url,
        token: "influx-tok-1",
        org: "acme org",
        bucket: "gw",
      }),
      snapshot,
    );
    assert.deepEqual([result.ok, result.status], [true, 204]);
    const [push] = receivers.influxdb.pushes;
    assert.equal(push?.path, "/api/v2/write");
    assert.deepEqual(push?.query, { org: "acme org", bucket: "gw", precision: "ms" });
    assert.equal(push?.auth.token, "influx-tok-1");
    assert.equal(
      seriesValue(push?.metrics ?? [], "service_requests_total", { model: 'm,1="x"', project: "big co" }),
      5,
    );
    assert.ok(push?.metrics.every((m) => m.timestampMs === at));
  });

  it("webhook: JSON signed over the raw body, plus the integration's headers", async () => {
    const hook = integration("webhook", {
      url: `${receivers.webhook.url}/hooks/metrics`,
      secret: "whsec-1",
      headers: { "X-Team": "ops" },
    });
    const result = await sendPush(hook, snapshot);
    assert.deepEqual([result.ok, result.status], [true, 200]);
    const [push] = receivers.webhook.pushes;
    assert.equal(push?.path, "/hooks/metrics");
    assert.equal(push?.signatureValid, true);
    assert.match(push?.auth.signature ?? "", /^sha256=[0-9a-f]{64}$/);
    assert.equal(push?.headers["x-team"], "ops");
    assert.equal(
      seriesValue(push?.metrics ?? [], "service_tokens_total", {
        type: "output",
        project: "acme",
        model: "gpt-4o",
      }),
      340,
    );

    receivers.webhook.setSecret("another-secret");
    const refused = await sendPush(hook, snapshot);
    assert.deepEqual([refused.ok, refused.status], [false, 401]);
    assert.equal(receivers.webhook.pushes[1]?.signatureValid, false);
  });

  it("sends through a given fetch as well", async () => {
    const result = await sendPush(
      integration("influxdb", { url: receivers.influxdb.url, token: "influx-tok-1", org: "o", bucket: "b" }),
      snapshot,
      { fetchImpl: fetch },
    );
    assert.deepEqual([result.ok, result.status], [true, 204]);
    assert.equal(receivers.influxdb.pushes[0]?.metrics.length, snapshot.samples.length);
  });

  it("a prometheus integration is pull-based: ok without a request", async () => {
    const result = await sendPush(integration("prometheus", {}), snapshot);
    assert.equal(result.ok, true);
    assert.match(result.message, /pull-based/);
  });
});

describe("metrics push: failures are ok:false with a reason, never a secret", () => {
  let receivers: MetricReceivers;
  before(async () => {
    receivers = await startMetricReceivers();
  });
  after(async () => {
    await receivers.close();
  });

  it("401 and 500 answers carry the status and a short piece of the body", async () => {
    receivers.influxdb.fail(401, '{"code":"unauthorized","message":"unauthorized access"}');
    const influx = integration("influxdb", {
      url: receivers.influxdb.url,
      token: "tok-401",
      org: "o",
      bucket: "b",
    });
    const unauthorized = await sendPush(influx, snapshot);
    assert.equal(unauthorized.ok, false);
    assert.equal(unauthorized.status, 401);
    assert.match(unauthorized.message, /answered HTTP 401: .*unauthorized access/);

    receivers.otel.fail(500, `internal error ${"x".repeat(1000)}`);
    const failed = await sendPush(
      integration("otel", { endpoint: receivers.otel.url, protocol: "http/protobuf", headers: {} }),
      snapshot,
    );
    assert.deepEqual([failed.ok, failed.status], [false, 500]);
    assert.match(failed.message, /HTTP 500: internal error x+/);
    assert.ok(failed.message.length < 300, "only a short piece of the body");
  });

  it("a receiver echoing the credentials back does not leak them into the message", async () => {
    receivers.grafana.fail(
      401,
      (push) => `bad auth: ${push.auth.authorization} (password ${push.auth.basic?.password})`,
    );
    const grafana = await sendPush(
      integration("grafana", {
        url: `${receivers.grafana.url}/push`,
        username: "user",
        apiKey: "glc-very-secret",
      }),
      snapshot,
    );
    assert.equal(grafana.status, 401);
    assert.ok(!grafana.message.includes("glc-very-secret"), grafana.message);
    assert.ok(
      !grafana.message.includes(Buffer.from("user:glc-very-secret").toString("base64")),
      grafana.message,
    );
    assert.match(grafana.message, /\[redacted\]/);

    receivers.datadog.fail(403, (push) => `{"errors":["key ${push.auth.apiKey} is invalid"]}`);
    const datadog = await sendPush(
      integration("datadog", { apiKey: "dd-very-secret", site: "datadoghq.com" }),
      snapshot,
      {
        datadogApiUrl: receivers.datadog.url,
      },
    );
    assert.equal(datadog.status, 403);
    assert.ok(!datadog.message.includes("dd-very-secret"), datadog.message);

    receivers.webhook.fail(400, (push) => `header was ${String(push.headers.authorization)}`);
    const webhook = await sendPush(
      integration("webhook", {
        url: receivers.webhook.url,
        headers: { Authorization: "Bearer hook-very-secret" },
      }),
      snapshot,
    );
    assert.equal(webhook.status, 400);
    assert.ok(!webhook.message.includes("hook-very-secret"), webhook.message);
  });

  it("a stalled receiver ends in a timeout message", async () => {
    receivers.webhook.stall();
    const started = Date.now();
    const result = await sendPush(
      integration("webhook", { url: receivers.webhook.url, headers: {} }),
      snapshot,
      {
        timeoutMs: 300,
      },
    );
    assert.equal(result.ok, false);
    assert.equal(result.status, undefined);
    assert.match(result.message, /no answer from 127\.0\.0\.1:\d+ within 0\.3 s/);
    assert.ok(Date.now() - started < 5_000);
    receivers.webhook.reset();
  });

  it("metadata and link-local URLs are refused before any request, unless allowed", async () => {
    const metadata = integration("webhook", { url: "http://169.254.169.254/latest/meta-data/", headers: {} });
    const refused = await sendPush(metadata, snapshot, { allowMetadataUrls: false });
    assert.equal(refused.ok, false);
    assert.match(refused.message, /link-local or a cloud metadata endpoint/);
    const otel = await sendPush(
      integration("otel", { endpoint: "http://[fe80::1]:4318", protocol: "http/json", headers: {} }),
      snapshot,
      { allowMetadataUrls: false },
    );
    assert.match(otel.message, /refused/);
    const allowed = await sendPush(metadata, snapshot, { allowMetadataUrls: true, timeoutMs: 200 });
    assert.equal(allowed.ok, false);
    assert.doesNotMatch(allowed.message, /metadata endpoint/, "allowed: the push was attempted");
  });

  it("an unreachable port, a non-http URL and an unresolvable host are ok:false", async () => {
    const port = await freePort();
    const closed = await sendPush(
      integration("webhook", { url: `http://127.0.0.1:${port}/`, headers: {} }),
      snapshot,
    );
    assert.equal(closed.ok, false);
    assert.match(closed.message, /connection to 127\.0\.0\.1:\d+ was refused/);
    const ftp = await sendPush(integration("webhook", { url: "ftp://example.com/x", headers: {} }), snapshot);
    assert.match(ftp.message, /only http and https/);
    const nowhere = await sendPush(
      integration("influxdb", {
        url: "http://no-such-host.invalid",
        token: "t-secret",
        org: "o",
        bucket: "b",
      }),
      snapshot,
    );
    assert.equal(nowhere.ok, false);
    assert.match(nowhere.message, /does not resolve|failed/);
  });

  it("redact replaces secrets and their URL-encoded form, ignoring values too short to be secrets", () => {
    assert.equal(redact("a s3cr3t/x b s3cr3t%2Fx c", ["s3cr3t/x", "ab"]), "a [redacted] b [redacted] c");
  });
});
