import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseLineProtocol } from "@gw/testing";
import { influxLines, influxRequest, influxWriteUrl } from "./influx-line.js";
import { fixtureSnapshot } from "./snapshot-fixture.js";

const settings = { url: "http://influx:8086", token: "tok-123", org: "my org", bucket: "metrics&more" };

describe("metrics formats: InfluxDB line protocol", () => {
  it("measurement = metric, tags = labels, field value, ms timestamp; escaping round-trips", () => {
    const lines = influxLines(fixtureSnapshot());
    const ms = fixtureSnapshot().at.getTime();
    assert.equal(lines[0], `service_requests_total,model=gpt-4o,project=acme value=10 ${ms}`);
    assert.equal(lines[1], `service_requests_total,project=acme value=2 ${ms}`, "no empty tag value");
    assert.equal(lines[2], `service_requests_total,model=m\\,1\\="x",project=big\\ co value=5 ${ms}`);
    const parsed = parseLineProtocol(lines.join("\n"), "ms");
    assert.equal(parsed.length, fixtureSnapshot().samples.length);
    assert.deepEqual(parsed[2], {
      name: "service_requests_total",
      labels: { model: 'm,1="x"', project: "big co" },
      value: 5,
      timestampMs: ms,
    });
    assert.equal(parsed.find((m) => m.name === "service_cost_usd_total")?.value, 0.0125);
  });

  it("writes to /api/v2/write with org, bucket, precision=ms and a Token header", () => {
    assert.equal(
      influxWriteUrl({ ...settings, url: "https://influx.example/prefix/" }),
      "https://influx.example/prefix/api/v2/write?org=my+org&bucket=metrics%26more&precision=ms",
    );
    const request = influxRequest(settings, fixtureSnapshot());
    assert.equal(
      request.url,
      "http://influx:8086/api/v2/write?org=my+org&bucket=metrics%26more&precision=ms",
    );
    assert.equal(request.headers.authorization, "Token tok-123");
    assert.equal(request.headers["content-type"], "text/plain; charset=utf-8");
    assert.deepEqual(request.secrets, ["tok-123"]);
  });
});
