import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import snappy from "snappyjs";
import {
  decodeDatadogSeries,
  type MetricReceivers,
  parseLineProtocol,
  startMetricReceivers,
} from "./index.js";

/** A hand-built WriteRequest with the labels in the order given. */
function writeRequest(labels: [string, string][], value: number, timestampMs: number): Uint8Array {
  const writer = new BinaryWriter();
  writer.tag(1, WireType.LengthDelimited).fork();
  for (const [name, labelValue] of labels)
    writer
      .tag(1, WireType.LengthDelimited)
      .fork()
      .tag(1, WireType.LengthDelimited)
      .string(name)
      .tag(2, WireType.LengthDelimited)
      .string(labelValue)
      .join();
  writer
    .tag(2, WireType.LengthDelimited)
    .fork()
    .tag(1, WireType.Bit64)
    .double(value)
    .tag(2, WireType.Varint)
    .int64(timestampMs)
    .join();
  writer.join();
  return snappy.compress(writer.finish());
}

describe("metric receivers: they check the wire format like the real services", () => {
  let receivers: MetricReceivers;
  before(async () => {
    receivers = await startMetricReceivers();
  });
  after(async () => {
    await receivers.close();
  });

  it("remote write: decodes sorted labels, refuses unsorted ones, missing snappy or auth", async () => {
    const post = (body: Uint8Array, headers: Record<string, string>) =>
      fetch(`${receivers.grafana.url}/api/prom/push`, { method: "POST", body, headers });
    const good = {
      authorization: `Basic ${Buffer.from("u:p").toString("base64")}`,
      "content-encoding": "snappy",
      "content-type": "application/x-protobuf",
    };
    const sorted = writeRequest(
      [
        ["__name__", "m"],
        ["a", "1"],
        ["b", "2"],
      ],
      1.5,
      1000,
    );
    assert.equal((await post(sorted, good)).status, 204);
    assert.deepEqual(receivers.grafana.pushes[0]?.metrics, [
      { name: "m", labels: { a: "1", b: "2" }, value: 1.5, timestampMs: 1000 },
    ]);
    const unsorted = writeRequest(
      [
        ["__name__", "m"],
        ["b", "2"],
        ["a", "1"],
      ],
      1,
      1000,
    );
    assert.equal((await post(unsorted, good)).status, 400);
    assert.match(receivers.grafana.pushes[1]?.error ?? "", /not sorted/);
    assert.equal((await post(sorted, { ...good, "content-encoding": "identity" })).status, 400);
    assert.equal((await post(sorted, { ...good, authorization: "" })).status, 401);
  });

  it("influx: Token, org and bucket are required; line protocol escapes and types parse", async () => {
    const write = (query: string, authorization: string) =>
      fetch(`${receivers.influxdb.url}/api/v2/write?${query}`, {
        method: "POST",
        headers: { authorization, "content-type": "text/plain" },
        body: "m,t=a value=1 1700000000000",
      });
    assert.equal((await write("org=o&bucket=b&precision=ms", "Token x")).status, 204);
    assert.equal((await write("org=o&bucket=b&precision=ms", "")).status, 401);
    assert.equal((await write("org=o&precision=ms", "Token x")).status, 400);
    assert.deepEqual(
      parseLineProtocol('my\\ m,k\\=1=v\\,2,z=\\ q value=3i,other="a b",f=t,g=-1.5e2 1700000000', "s"),
      [
        { name: "my m", labels: { "k=1": "v,2", z: " q" }, value: 3, timestampMs: 1_700_000_000_000 },
        { name: "my m.g", labels: { "k=1": "v,2", z: " q" }, value: -150, timestampMs: 1_700_000_000_000 },
      ],
    );
    assert.throws(() => parseLineProtocol("m value=abc"), /malformed field value/);
    assert.throws(() => parseLineProtocol("m,t= value=1"), /malformed tag/);
  });

  it("datadog: DD-API-KEY required; the series shape is checked", async () => {
    const post = (headers: Record<string, string>, body: unknown) =>
      fetch(`${receivers.datadog.url}/api/v2/series`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    const series = {
      series: [{ metric: "m", type: 3, points: [{ timestamp: 1700000000, value: 2 }], tags: ["a:b:c"] }],
    };
    assert.equal((await post({ "content-type": "application/json" }, series)).status, 403);
    assert.equal((await post({ "content-type": "application/json", "dd-api-key": "k" }, series)).status, 202);
    assert.deepEqual(decodeDatadogSeries(JSON.stringify(series)), [
      { name: "m", labels: { a: "b:c" }, value: 2, type: "gauge", timestampMs: 1_700_000_000_000 },
    ]);
    assert.throws(
      () => decodeDatadogSeries(JSON.stringify({ series: [{ metric: "m", points: [[1, 2]] }] })),
      /numeric/,
    );
  });

  it("webhook: a body signed with another secret is refused and recorded as invalid", async () => {
    receivers.webhook.setSecret("right");
    const body = JSON.stringify({
      timestamp: new Date().toISOString(),
      metrics: [{ name: "m", value: 1, labels: {} }],
    });
    const response = await fetch(receivers.webhook.url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-signature": "sha256=00" },
      body,
    });
    assert.equal(response.status, 401);
    assert.equal(receivers.webhook.pushes.at(-1)?.signatureValid, false);
  });

  it("answers as told: a chosen status and body, or a delay", async () => {
    receivers.otel.fail(503, "busy");
    const failed = await fetch(`${receivers.otel.url}/v1/metrics`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"resourceMetrics":[]}',
    });
    assert.deepEqual([failed.status, await failed.text()], [503, "busy"]);
    receivers.otel.reset();
    receivers.otel.delay(150);
    const started = Date.now();
    const slow = await fetch(`${receivers.otel.url}/v1/metrics`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"resourceMetrics":[]}',
    });
    assert.equal(slow.status, 200);
    assert.ok(Date.now() - started >= 140);
    receivers.otel.reset();
  });
});
