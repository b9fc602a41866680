import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { MetricSnapshot } from "../samples.js";
import { DATADOG_COUNT, DATADOG_GAUGE, datadogRequest, datadogSeries, datadogSeriesUrl } from "./datadog.js";
import { fixtureSnapshot } from "./snapshot-fixture.js";

const later = (snapshot: MetricSnapshot, seconds: number, bump: (name: string, value: number) => number) => ({
  ...snapshot,
  at: new Date(snapshot.at.getTime() + seconds * 1000),
  samples: snapshot.samples.map((sample) => ({ ...sample, value: bump(sample.name, sample.value) })),
});

describe("metrics formats: Datadog series", () => {
  it("first push: counters as count 0 (no history dump), gauges as they are, tags key:value", () => {
    const series = datadogSeries(fixtureSnapshot());
    const timestamp = Math.floor(fixtureSnapshot().at.getTime() / 1000);
    assert.deepEqual(series[0], {
      metric: "service_requests_total",
      type: DATADOG_COUNT,
      points: [{ timestamp, value: 0 }],
      tags: ["project:acme", "model:gpt-4o"],
      interval: 60,
    });
    assert.deepEqual(series[1]?.tags, ["project:acme"], "an empty label is left out");
    const cost = series.find((s) => s.metric === "service_cost_usd_total");
    assert.deepEqual(cost, {
      metric: "service_cost_usd_total",
      type: DATADOG_GAUGE,
      points: [{ timestamp, value: 0.0125 }],
      tags: ["project:acme", "model:gpt-4o"],
    });
    assert.ok(series.filter((s) => s.type === DATADOG_COUNT).every((s) => s.points[0]?.value === 0));
  });

  it("later pushes: counts are the increase since the previous successful push, over its interval", () => {
    const previous = fixtureSnapshot();
    const current = later(previous, 61, (name, value) =>
      name === "service_requests_total" ? value + 3 : value,
    );
    const series = datadogSeries(current, previous);
    const requests = series.filter((s) => s.metric === "service_requests_total");
    assert.deepEqual(
      requests.map((s) => s.points[0]?.value),
      [3, 3, 3],
    );
    assert.ok(requests.every((s) => s.interval === 61));
    assert.deepEqual(
      series.filter((s) => s.metric === "service_tokens_total").map((s) => s.points[0]?.value),
      [0, 0],
    );
  });

  it("a series born after the previous push counts whole; a counter reset counts from 0", () => {
    const previous = fixtureSnapshot();
    const current = later(previous, 60, (name, value) => (name === "service_tokens_total" ? 7 : value));
    current.samples.push({
      name: "service_requests_total",
      type: "counter",
      labels: { project: "new", model: "x" },
      value: 4,
    });
    const series = datadogSeries(current, previous);
    assert.deepEqual(series.find((s) => s.tags.includes("project:new"))?.points[0]?.value, 4);
    assert.deepEqual(
      series.filter((s) => s.metric === "service_tokens_total").map((s) => s.points[0]?.value),
      [7, 7],
      "below the previous value: the state restarted",
    );
    const restarted = { ...current, startedAt: new Date(current.at.getTime() - 1000) };
    assert.equal(
      datadogSeries(restarted, previous)[0]?.points[0]?.value,
      10,
      "a new startedAt: counted from 0",
    );
  });

  it("posts to api.<site>/api/v2/series with DD-API-KEY; an override URL replaces the host", () => {
    assert.equal(datadogSeriesUrl("datadoghq.eu"), "https://api.datadoghq.eu/api/v2/series");
    assert.equal(datadogSeriesUrl("us5.datadoghq.com"), "https://api.us5.datadoghq.com/api/v2/series");
    assert.equal(
      datadogSeriesUrl("datadoghq.com", "http://127.0.0.1:9/"),
      "http://127.0.0.1:9/api/v2/series",
    );
    const request = datadogRequest({ apiKey: "dd-key-123", site: "ddog-gov.com" }, fixtureSnapshot());
    assert.equal(request.url, "https://api.ddog-gov.com/api/v2/series");
    assert.equal(request.headers["dd-api-key"], "dd-key-123");
    assert.equal(request.headers["content-type"], "application/json");
    assert.deepEqual(request.secrets, ["dd-key-123"]);
    assert.equal(JSON.parse(request.body as string).series.length, fixtureSnapshot().samples.length);
  });
});
