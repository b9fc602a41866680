/**
 * Latency histograms shared by the usage rollups (PostgreSQL, `usage_latency_bucket` in the
 * migration `usage_reporting_integrations` is the same function) and the exported latency gauges.
 * A bucket is exact below 100 ms; from 100 up a latency rounds DOWN to a step of
 * (leading digit x 10^(digits - 3)) ms: 100..199 step 1, 200..299 step 2, ..., 900..999 step 9,
 * 1000..1999 step 10, 2000..2999 step 20, ... Each step divides its decade's boundaries and is
 * below 1 % of the value, so a percentile read from merged histograms is within 1 % whatever the
 * number of records merged, with about 280 buckets per decade instead of 900 (the fewer the
 * buckets, the cheaper the month-long histogram merges of GET /api/usage).
 */
export function latencyBucket(ms: number): number {
  const whole = Math.max(0, Math.floor(ms));
  if (whole < 100) return whole;
  const digits = String(whole).length;
  const leading = Math.floor(whole / 10 ** (digits - 1));
  const step = leading * 10 ** (digits - 3);
  return Math.floor(whole / step) * step;
}

/** Histogram: bucket (ms, as a string key, the JSON form) -> calls. */
export type LatencyHistogram = Record<string, number>;

/** Add `from` into `into`, key by key; returns `into`. */
export function mergeHistogram(into: LatencyHistogram, from: LatencyHistogram): LatencyHistogram {
  for (const [bucket, calls] of Object.entries(from)) into[bucket] = (into[bucket] ?? 0) + Number(calls);
  return into;
}

/**
 * The nearest-rank percentile (`q` in 0..1) of a histogram: the smallest bucket at or below which
 * at least ceil(q * n) calls fall. `null` for an empty histogram.
 */
export function histogramPercentile(histogram: LatencyHistogram, q: number): number | null {
  const buckets = Object.entries(histogram)
    .map(([bucket, calls]) => [Number(bucket), Number(calls)] as const)
    .filter(([, calls]) => calls > 0)
    .sort((a, b) => a[0] - b[0]);
  const total = buckets.reduce((sum, [, calls]) => sum + calls, 0);
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [bucket, calls] of buckets) {
    seen += calls;
    if (seen >= rank) return bucket;
  }
  return buckets.at(-1)![0];
}
