import { dateToProtocolTimestamp, Point } from "@influxdata/influxdb-client";
import type { IntegrationSettingsOf } from "../integration-types.js";
import { METRIC_LIST, type MetricSnapshot } from "../samples.js";
import type { PushRequest } from "./request.js";

/**
 * InfluxDB v2 line protocol, one line per sample, built with the client library's Point (it
 * owns the escaping rules): measurement = metric name, tags = labels (an empty value is left
 * out: line protocol has no empty tag values), one float field `value`, timestamp in ms (the
 * request says precision=ms).
 */
export function influxLines(snapshot: MetricSnapshot): string[] {
  const known = new Set(METRIC_LIST.map((metric) => metric.name));
  const settings = {
    convertTime: (value: string | number | Date | undefined) => dateToProtocolTimestamp.ms(value as Date),
  };
  const lines: string[] = [];
  for (const sample of snapshot.samples) {
    if (!known.has(sample.name) || !Number.isFinite(sample.value)) continue;
    const point = new Point(sample.name).floatField("value", sample.value).timestamp(snapshot.at);
    for (const [name, value] of Object.entries(sample.labels)) if (value !== "") point.tag(name, value);
    const line = point.toLineProtocol(settings);
    if (line) lines.push(line);
  }
  return lines;
}

/** `<url>/api/v2/write?org=..&bucket=..&precision=ms` (a path prefix in `url` is kept). */
export function influxWriteUrl(settings: IntegrationSettingsOf<"influxdb">): string {
  const url = new URL(settings.url);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/api/v2/write`;
  url.search = new URLSearchParams({
    org: settings.org,
    bucket: settings.bucket,
    precision: "ms",
  }).toString();
  return url.href;
}

export function influxRequest(
  settings: IntegrationSettingsOf<"influxdb">,
  snapshot: MetricSnapshot,
): PushRequest {
  const lines = influxLines(snapshot);
  return {
    url: influxWriteUrl(settings),
    headers: { "content-type": "text/plain; charset=utf-8", authorization: `Token ${settings.token}` },
    body: lines.join("\n"),
    series: lines.length,
    secrets: [settings.token],
  };
}
