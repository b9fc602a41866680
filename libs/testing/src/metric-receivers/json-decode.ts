import { createHmac, timingSafeEqual } from "node:crypto";
import type { DecodedMetric } from "./types.js";

/**
 * Datadog v2 series (POST /api/v2/series, docs.datadoghq.com "Submit metrics"):
 * { series: [{ metric, type (0 unspecified, 1 count, 2 rate, 3 gauge), points: [{ timestamp
 * (unix seconds), value }], tags?: ["key:value"], interval? }] }. Checked like the API does:
 * points are objects with numeric timestamp and value.
 */
const DATADOG_TYPES = ["unspecified", "count", "rate", "gauge"];

export function decodeDatadogSeries(text: string): DecodedMetric[] {
  const body = JSON.parse(text) as { series?: unknown };
  if (!Array.isArray(body.series)) throw new Error("series is required and must be an array");
  const out: DecodedMetric[] = [];
  for (const series of body.series as Record<string, unknown>[]) {
    if (typeof series.metric !== "string" || !series.metric) throw new Error("metric is required");
    if (!Array.isArray(series.points) || series.points.length === 0) throw new Error("points is required");
    const type = series.type === undefined ? "unspecified" : DATADOG_TYPES[series.type as number];
    if (!type) throw new Error(`unknown type ${String(series.type)}`);
    const labels: Record<string, string> = {};
    for (const tag of (series.tags as unknown[] | undefined) ?? []) {
      if (typeof tag !== "string") throw new Error("tags must be strings");
      const colon = tag.indexOf(":");
      if (colon < 0) labels[tag] = "";
      else labels[tag.slice(0, colon)] = tag.slice(colon + 1);
    }
    for (const point of series.points as Record<string, unknown>[]) {
      if (typeof point?.timestamp !== "number" || typeof point.value !== "number")
        throw new Error("a point needs a numeric timestamp and value");
      if (!Number.isInteger(point.timestamp)) throw new Error("timestamp must be whole seconds");
      out.push({
        name: series.metric,
        labels: { ...labels },
        value: point.value,
        type,
        timestampMs: point.timestamp * 1000,
        ...(typeof series.interval === "number" ? { intervalS: series.interval } : {}),
      });
    }
  }
  return out;
}

/**
 * The gateway's webhook body (docs/METRICS.md "Wire formats"):
 * { timestamp, startedAt, metrics: [{ name, type, labels, value }] }.
 */
export function decodeWebhook(text: string): DecodedMetric[] {
  const body = JSON.parse(text) as { timestamp?: unknown; metrics?: unknown };
  if (typeof body.timestamp !== "string" || Number.isNaN(Date.parse(body.timestamp)))
    throw new Error("timestamp must be an ISO 8601 string");
  if (!Array.isArray(body.metrics)) throw new Error("metrics must be an array");
  const timestampMs = Date.parse(body.timestamp);
  return (body.metrics as Record<string, unknown>[]).map((metric) => {
    if (typeof metric.name !== "string" || typeof metric.value !== "number")
      throw new Error("a metric needs a name and a numeric value");
    return {
      name: metric.name,
      labels: { ...((metric.labels as Record<string, string>) ?? {}) },
      value: metric.value,
      type: typeof metric.type === "string" ? metric.type : undefined,
      timestampMs,
    };
  });
}

/** SPEC "Authentication" 7: recompute HMAC-SHA256 over the raw body, compare in constant time. */
export function verifySignature(secret: string, raw: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith("sha256=")) return false;
  const expected = createHmac("sha256", secret).update(raw).digest();
  const given = Buffer.from(header.slice("sha256=".length), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}
