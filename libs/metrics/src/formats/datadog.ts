import type { IntegrationSettingsOf } from "../integration-types.js";
import { METRIC_LIST, type MetricSample, type MetricSnapshot, seriesKey } from "../samples.js";
import type { PushRequest } from "./request.js";

/** MetricIntakeType of the v2 series API: 0 unspecified, 1 count, 2 rate, 3 gauge. */
export const DATADOG_COUNT = 1;
export const DATADOG_GAUGE = 3;
/** The interval a count covers when there is no previous push to measure it from. */
export const DATADOG_DEFAULT_INTERVAL_S = 60;

export interface DatadogSeries {
  metric: string;
  type: typeof DATADOG_COUNT | typeof DATADOG_GAUGE;
  points: { timestamp: number; value: number }[];
  tags: string[];
  /** Seconds the count covers (counts only). */
  interval?: number;
}

/**
 * The v2 series body (POST /api/v2/series). Gauges are sent as they are. Counters become
 * `count` series carrying the increase since `previous`, the snapshot of this integration's last
 * successful push: Datadog sums counts, so sending the cumulative value would count everything
 * again every minute. A failed push keeps `previous`, so the next successful one carries both
 * intervals and nothing is lost.
 *
 * With no previous push (a new integration, or its first test) counters are sent as 0: the
 * series appear in Datadog, and the history accumulated before the integration existed is not
 * dumped into one minute as a huge spike. A series absent from `previous` started after it, so its
 * whole value is its increase; a counter state reset (a new `startedAt`, or a value below the
 * previous one) counts from 0 again.
 */
export function datadogSeries(snapshot: MetricSnapshot, previous?: MetricSnapshot | null): DatadogSeries[] {
  const timestamp = Math.floor(snapshot.at.getTime() / 1000);
  const comparable =
    previous && previous.startedAt.getTime() === snapshot.startedAt.getTime() ? previous : null;
  const before = new Map((comparable?.samples ?? []).map((sample) => [seriesKey(sample), sample.value]));
  const interval = previous
    ? Math.max(1, Math.round((snapshot.at.getTime() - previous.at.getTime()) / 1000))
    : DATADOG_DEFAULT_INTERVAL_S;
  const known = new Set(METRIC_LIST.map((metric) => metric.name));
  return snapshot.samples
    .filter((sample) => known.has(sample.name) && Number.isFinite(sample.value))
    .map((sample) => {
      const tags = datadogTags(sample);
      if (sample.type !== "counter")
        return {
          metric: sample.name,
          type: DATADOG_GAUGE,
          points: [{ timestamp, value: sample.value }],
          tags,
        };
      return {
        metric: sample.name,
        type: DATADOG_COUNT,
        points: [{ timestamp, value: previous ? countIncrease(sample, before) : 0 }],
        tags,
        interval,
      };
    });
}

function countIncrease(sample: MetricSample, before: Map<string, number>): number {
  const last = before.get(seriesKey(sample)) ?? 0;
  return sample.value >= last ? sample.value - last : sample.value;
}

/** `key:value` tags; an empty value (no model) is left out rather than sent as `model:`. */
export function datadogTags(sample: Pick<MetricSample, "labels">): string[] {
  return Object.entries(sample.labels)
    .filter(([, value]) => value !== "")
    .map(([key, value]) => `${key}:${value}`);
}

/**
 * `https://api.<site>`; `SERVICE_DATADOG_API_URL` (read at each call) or the `apiUrl` argument
 * replaces it, for a proxy in front of Datadog or a test receiver.
 */
export function datadogSeriesUrl(site: string, apiUrl?: string): string {
  const base = apiUrl ?? process.env.SERVICE_DATADOG_API_URL ?? `https://api.${site}`;
  return `${base.replace(/\/+$/, "")}/api/v2/series`;
}

export function datadogRequest(
  settings: IntegrationSettingsOf<"datadog">,
  snapshot: MetricSnapshot,
  options: { previous?: MetricSnapshot | null; apiUrl?: string } = {},
): PushRequest {
  const series = datadogSeries(snapshot, options.previous);
  return {
    url: datadogSeriesUrl(settings.site ?? "datadoghq.com", options.apiUrl),
    headers: { "content-type": "application/json", "dd-api-key": settings.apiKey },
    body: JSON.stringify({ series }),
    series: series.length,
    secrets: [settings.apiKey],
  };
}
