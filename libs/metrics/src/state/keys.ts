/**
 * Where the shared metric state lives in the counter store (Redis in distributed mode, so every
 * exporter replica and the admin API read the same figures). `prefix` keeps deployments and test
 * suites sharing one Redis apart: services pass their BUS_NAMESPACE, as the bus prefixes streams.
 *
 * - `metrics:series`: hash, one field per cumulative series (seriesKey of the sample; cost in
 *   micro-USD), never expires (the counters are cumulative since `metrics:epoch`).
 * - `metrics:epoch`: hash, `startedAtMs` = when the cumulative series started (OTLP start time).
 * - `metrics:seen:<UTC hour>`: hash of the usage record ids already counted, 48 h TTL.
 * - `metrics:latency:<minute start ms>`: hash `<project>\0<latency bucket>` -> calls, ~15 min TTL.
 * - `metrics:pushed:<integration id>`: string (JSON): last push attempt and last pushed snapshot.
 * - `metrics:push-lock:<integration id>`: counter used as a mutex while one replica pushes.
 */
export interface MetricKeys {
  series: string;
  epoch: string;
  seen(hour: string): string;
  latency(minuteStartMs: number): string;
  pushState(integrationId: string): string;
  pushLock(integrationId: string): string;
}

/** The key prefix for a namespace: `<namespace>:` or nothing. */
export function metricKeyPrefix(namespace: string | undefined): string {
  return namespace ? `${namespace}:` : "";
}

export function metricKeys(prefix = ""): MetricKeys {
  const base = `${prefix}metrics:`;
  return {
    series: `${base}series`,
    epoch: `${base}epoch`,
    seen: (hour) => `${base}seen:${hour}`,
    latency: (minuteStartMs) => `${base}latency:${minuteStartMs}`,
    pushState: (id) => `${base}pushed:${id}`,
    pushLock: (id) => `${base}push-lock:${id}`,
  };
}

export const MINUTE_MS = 60_000;
/** Latency gauges cover the current minute and the four before it (4 to 5 minutes of calls). */
export const LATENCY_WINDOW_MINUTES = 5;
/** Minute hashes outlive the window comfortably, then expire by themselves. */
export const LATENCY_KEY_TTL_MS = 15 * MINUTE_MS;
/** How long a record id is remembered: redeliveries and outbox replays come well within this. */
export const SEEN_TTL_MS = 48 * 3_600_000;

export function minuteStart(ms: number): number {
  return Math.floor(ms / MINUTE_MS) * MINUTE_MS;
}
