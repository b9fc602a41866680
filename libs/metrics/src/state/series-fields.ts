import { METRIC_LIST, type MetricSample, seriesKey } from "../samples.js";

/**
 * Cumulative series are fields of one hash, named by `seriesKey` (the metric name and its sorted
 * labels as JSON), so reading them back needs no schema: the field says what it is.
 */
export function seriesField(name: string, labels: Record<string, string>): string {
  return seriesKey({ name, labels });
}

const TYPES = new Map(METRIC_LIST.map((metric) => [metric.name, metric.type]));

/** The sample a stored field names (value not set), or null for a field this version does not know. */
export function parseSeriesField(field: string): Omit<MetricSample, "value"> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(field);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== "string") return null;
  const [name, pairs] = parsed as [string, unknown];
  const type = TYPES.get(name);
  if (!type || !Array.isArray(pairs)) return null;
  const labels: Record<string, string> = {};
  for (const pair of pairs) {
    if (!Array.isArray(pair) || typeof pair[0] !== "string" || typeof pair[1] !== "string") return null;
    labels[pair[0]] = pair[1];
  }
  return { name, type, labels };
}

/** The latency hash field of one call: project and bucket, split by NUL (never part of a slug). */
export function latencyField(project: string, bucket: number): string {
  return `${project}\u0000${bucket}`;
}

export function parseLatencyField(field: string): { project: string; bucket: string } | null {
  const cut = field.lastIndexOf("\u0000");
  if (cut <= 0) return null;
  return { project: field.slice(0, cut), bucket: field.slice(cut + 1) };
}
