import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { METRIC_LIST } from "../samples.js";
import { PROMETHEUS_CONTENT_TYPE, renderPrometheusText } from "./prometheus-text.js";
import { fixtureSnapshot } from "./snapshot-fixture.js";

describe("metrics formats: Prometheus text", () => {
  it("prints HELP and TYPE of every metric and every sample with its labels", async () => {
    const text = await renderPrometheusText(fixtureSnapshot());
    for (const metric of METRIC_LIST) {
      assert.ok(text.includes(`# HELP ${metric.name} ${metric.help}\n`), metric.name);
      assert.ok(text.includes(`# TYPE ${metric.name} ${metric.type}\n`), metric.name);
    }
    const lines = text.split("\n").filter((line) => line && !line.startsWith("#"));
    assert.deepEqual(lines, [
      'service_requests_total{project="acme",model="gpt-4o"} 10',
      'service_requests_total{project="acme",model=""} 2',
      'service_requests_total{project="big co",model="m,1=\\"x\\""} 5',
      'service_tokens_total{type="input",project="acme",model="gpt-4o"} 1200',
      'service_tokens_total{type="output",project="acme",model="gpt-4o"} 340',
      'service_cost_usd_total{project="acme",model="gpt-4o"} 0.0125',
      'service_request_duration_p50_ms{project="acme"} 250',
      'service_request_duration_p95_ms{project="acme"} 1000',
      'service_budget_used_ratio{project="acme"} 0.42',
    ]);
    assert.match(PROMETHEUS_CONTENT_TYPE, /^text\/plain; version=0\.0\.4/);
  });

  it("prints the families of an empty snapshot, and renders twice the same (no shared registry)", async () => {
    const empty = { at: new Date(), startedAt: new Date(), samples: [] };
    const text = await renderPrometheusText(empty);
    assert.equal(text.split("\n").filter((line) => line.startsWith("# TYPE")).length, METRIC_LIST.length);
    assert.equal(text.split("\n").filter((line) => line && !line.startsWith("#")).length, 0);
    assert.equal(
      await renderPrometheusText(fixtureSnapshot()),
      await renderPrometheusText(fixtureSnapshot()),
    );
  });

  it("ignores unknown metrics, undeclared labels and non-finite values instead of throwing", async () => {
    const text = await renderPrometheusText({
      at: new Date(),
      startedAt: new Date(),
      samples: [
        { name: "unknown_total", type: "counter", labels: {}, value: 1 },
        {
          name: "service_budget_used_ratio",
          type: "gauge",
          labels: { project: "p", extra: "x" },
          value: 0.5,
        },
        {
          name: "service_request_duration_p50_ms",
          type: "gauge",
          labels: { project: "p" },
          value: Number.NaN,
        },
      ],
    });
    assert.ok(!text.includes("unknown_total"));
    assert.ok(text.includes('service_budget_used_ratio{project="p"} 0.5'));
    assert.ok(!text.includes("service_request_duration_p50_ms{"));
  });
});
