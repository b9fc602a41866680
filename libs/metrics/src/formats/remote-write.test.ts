import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decodeRemoteWrite } from "@gw/testing";
import snappy from "snappyjs";
import {
  encodeRemoteWrite,
  encodeWriteRequest,
  remoteWriteRequest,
  remoteWriteSeries,
} from "./remote-write.js";
import { fixtureSnapshot } from "./snapshot-fixture.js";

describe("metrics formats: Prometheus remote write", () => {
  it("one series per sample, labels sorted with __name__ first, empty labels left out", () => {
    const series = remoteWriteSeries(fixtureSnapshot());
    assert.deepEqual(series[0], {
      labels: [
        { name: "__name__", value: "service_requests_total" },
        { name: "model", value: "gpt-4o" },
        { name: "project", value: "acme" },
      ],
      value: 10,
      timestampMs: fixtureSnapshot().at.getTime(),
    });
    assert.deepEqual(
      series[1]?.labels.map((l) => l.name),
      ["__name__", "project"],
    );
    assert.deepEqual(
      series[3]?.labels.map((l) => l.name),
      ["__name__", "model", "project", "type"],
    );
  });

  it("the body is snappy block-compressed prompb that an independent decoder reads back", () => {
    const body = encodeRemoteWrite(fixtureSnapshot());
    assert.deepEqual(snappy.uncompress(body), encodeWriteRequest(remoteWriteSeries(fixtureSnapshot())));
    const decoded = decodeRemoteWrite(body);
    assert.equal(decoded.length, fixtureSnapshot().samples.length);
    assert.deepEqual(decoded[2], {
      name: "service_requests_total",
      labels: { model: 'm,1="x"', project: "big co" },
      value: 5,
      timestampMs: fixtureSnapshot().at.getTime(),
    });
    assert.equal(decoded.find((m) => m.name === "service_cost_usd_total")?.value, 0.0125);
  });

  it("remote write headers and basic auth username:apiKey, to the URL as given", () => {
    const request = remoteWriteRequest(
      { url: "https://prometheus-prod.grafana.net/api/prom/push", username: "12345", apiKey: "glc_secret" },
      fixtureSnapshot(),
    );
    assert.equal(request.url, "https://prometheus-prod.grafana.net/api/prom/push");
    assert.equal(request.headers["content-encoding"], "snappy");
    assert.equal(request.headers["content-type"], "application/x-protobuf");
    assert.equal(request.headers["x-prometheus-remote-write-version"], "0.1.0");
    assert.equal(
      request.headers.authorization,
      `Basic ${Buffer.from("12345:glc_secret").toString("base64")}`,
    );
    assert.ok(request.secrets.includes("glc_secret"));
    assert.ok(request.secrets.includes(Buffer.from("12345:glc_secret").toString("base64")));
  });
});
