import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type DecodedMetric, decodeOtlpJson, decodeOtlpProtobuf } from "@gw/testing";
import { encodeOtlp, otlpMetricsUrl, otlpRequest } from "./otlp.js";
import { fixtureSnapshot } from "./snapshot-fixture.js";

const snapshot = fixtureSnapshot();
const at = snapshot.at.getTime();
const startedAt = snapshot.startedAt.getTime();

function find(metrics: DecodedMetric[], name: string, labels: Record<string, string>): DecodedMetric {
  const found = metrics.find((m) => m.name === name && JSON.stringify(m.labels) === JSON.stringify(labels));
  assert.ok(found, `${name} ${JSON.stringify(labels)}`);
  return found;
}

describe("metrics formats: OTLP", () => {
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    it(`${protocol}: counters are monotonic cumulative sums from startedAt, gauges are gauges`, () => {
      const body = encodeOtlp(snapshot, protocol);
      const decoded =
        protocol === "http/json" ? decodeOtlpJson(new TextDecoder().decode(body)) : decodeOtlpProtobuf(body);
      assert.deepEqual(decoded.resource, { "service.name": "llm-gateway" });
      assert.equal(decoded.scope, "llm-gateway");
      assert.equal(decoded.metrics.length, snapshot.samples.length);
      const requests = find(decoded.metrics, "service_requests_total", {
        project: "big co",
        model: 'm,1="x"',
      });
      assert.deepEqual(
        { ...requests },
        {
          name: "service_requests_total",
          labels: { project: "big co", model: 'm,1="x"' },
          value: 5,
          type: "sum",
          temporality: "cumulative",
          monotonic: true,
          startTimeMs: startedAt,
          timestampMs: at,
        },
      );
      const tokens = find(decoded.metrics, "service_tokens_total", {
        type: "output",
        project: "acme",
        model: "gpt-4o",
      });
      assert.equal(tokens.value, 340);
      const cost = find(decoded.metrics, "service_cost_usd_total", { project: "acme", model: "gpt-4o" });
      assert.equal(cost.type, "gauge");
      assert.equal(cost.value, 0.0125);
      assert.equal(cost.timestampMs, at);
      assert.equal(find(decoded.metrics, "service_budget_used_ratio", { project: "acme" }).value, 0.42);
    });
  }

  it("appends /v1/metrics to a base endpoint and keeps a full one", () => {
    assert.equal(otlpMetricsUrl("http://collector:4318"), "http://collector:4318/v1/metrics");
    assert.equal(otlpMetricsUrl("http://collector:4318/"), "http://collector:4318/v1/metrics");
    assert.equal(otlpMetricsUrl("https://otlp.example/otlp/"), "https://otlp.example/otlp/v1/metrics");
    assert.equal(
      otlpMetricsUrl("https://otlp.example/otlp/v1/metrics"),
      "https://otlp.example/otlp/v1/metrics",
    );
    assert.equal(
      otlpMetricsUrl("https://otlp.example/x?tenant=1"),
      "https://otlp.example/x/v1/metrics?tenant=1",
    );
  });

  it("sends the integration's headers, never letting them replace the content type", () => {
    const request = otlpRequest(
      {
        endpoint: "http://collector:4318",
        protocol: "http/json",
        headers: { Authorization: "Bearer s3cret", "Content-Type": "text/plain" },
      },
      snapshot,
    );
    assert.equal(request.headers["content-type"], "application/json");
    assert.equal(request.headers.authorization, "Bearer s3cret");
    assert.ok(request.secrets.includes("Bearer s3cret"));
    const proto = otlpRequest(
      { endpoint: "http://collector:4318", protocol: "http/protobuf", headers: {} },
      snapshot,
    );
    assert.equal(proto.headers["content-type"], "application/x-protobuf");
  });

  it("an empty snapshot is a valid request with no metrics", () => {
    const body = encodeOtlp({ ...snapshot, samples: [] }, "http/protobuf");
    assert.deepEqual(decodeOtlpProtobuf(body).metrics, []);
  });
});
