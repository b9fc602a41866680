/**
 * Latency histograms shared by the usage rollups (PostgreSQL, `usage_latency_bucket` in the
 * migration `usage_reporting_integrations` is the same function) and the exported latency gauges.
 * A bucket is exact below 1 s and keeps three significant digits above (1234 -> 1230), so a
 * percentile read from merged histograms is exact below a second and within 1 % above, whatever
 * the number of records merged.
 */
export function latencyBucket(ms: number): number {
  const whole = Math.max(0, Math.floor(ms));
  if (whole < 1000) return whole;
  const step = 10 ** (String(whole).length - 3);
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
