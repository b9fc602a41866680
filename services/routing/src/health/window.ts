import type { HealthSettings, ModelHealth } from "./types.js";

/** One bucket's counters as read from the store. */
export interface BucketCounts {
  ok: number;
  err: number;
  /** Summed time to headers of the successes, ms. */
  lat: number;
}

/**
 * Starts of the buckets in the window at `now`, newest first: the current bucket and the ones
 * before it, `ceil(windowMs / bucketMs)` in all. Buckets are aligned to the epoch, so every replica
 * derives the same keys from the same clock time.
 */
export function bucketStarts(now: number, settings: Pick<HealthSettings, "windowMs" | "bucketMs">): number[] {
  const current = currentBucketStart(now, settings);
  return Array.from({ length: bucketCount(settings) }, (_, index) => current - index * settings.bucketMs);
}

/** Start of the bucket `now` falls in (the first of `bucketStarts`). */
export function currentBucketStart(now: number, settings: Pick<HealthSettings, "bucketMs">): number {
  return Math.floor(now / settings.bucketMs) * settings.bucketMs;
}

/** How many buckets a window has (the length of `bucketStarts`). */
export function bucketCount(settings: Pick<HealthSettings, "windowMs" | "bucketMs">): number {
  return Math.ceil(settings.windowMs / settings.bucketMs);
}

/**
 * A bucket's key outlives the window it can appear in: written up to the end of its bucket, read
 * until it falls out of the window.
 */
export function bucketTtlMs(settings: Pick<HealthSettings, "windowMs" | "bucketMs">): number {
  return settings.windowMs + settings.bucketMs;
}

/**
 * Weight of the bucket `index` places before the current one: 0.5^(age / halfLife), age measured
 * from the current bucket's start (the current bucket weighs 1). Whole-bucket ages keep the
 * numbers stable within a bucket, so `calls` does not drift below `minCalls` between two calls.
 */
export function bucketWeight(
  index: number,
  settings: Pick<HealthSettings, "bucketMs" | "halfLifeMs">,
): number {
  return 0.5 ** ((index * settings.bucketMs) / settings.halfLifeMs);
}

export interface WindowStats {
  errorRate: number | null;
  calls: number;
  latencyMs: number | null;
}

/** Decayed error rate, calls and mean success latency over `buckets` (newest first, as `bucketStarts`). */
export function windowStats(
  buckets: readonly BucketCounts[],
  settings: Pick<HealthSettings, "bucketMs" | "halfLifeMs" | "minCalls">,
): WindowStats {
  let ok = 0;
  let err = 0;
  let lat = 0;
  buckets.forEach((bucket, index) => {
    const weight = bucketWeight(index, settings);
    ok += weight * bucket.ok;
    err += weight * bucket.err;
    lat += weight * bucket.lat;
  });
  return decayedStats(ok, err, lat, settings.minCalls);
}

/** `bucketWeight` of each of `count` buckets, newest first: computed once per call, used for every model. */
export function bucketWeights(
  count: number,
  settings: Pick<HealthSettings, "bucketMs" | "halfLifeMs">,
): number[] {
  const weights: number[] = [];
  for (let index = 0; index < count; index++) weights.push(bucketWeight(index, settings));
  return weights;
}

/**
 * `windowStats` over counters as a `get` returns them, without building bucket objects: bucket
 * `index` (newest first, `weights.length` of them) is `values[offset + 3 * index]` (ok), `+ 1`
 * (err), `+ 2` (lat); a missing value is 0. The same sums in the same order as `windowStats`.
 */
export function flatWindowStats(
  values: readonly number[],
  offset: number,
  weights: readonly number[],
  minCalls: number,
): WindowStats {
  let ok = 0;
  let err = 0;
  let lat = 0;
  for (let index = 0; index < weights.length; index++) {
    const weight = weights[index]!;
    const at = offset + 3 * index;
    ok += weight * (values[at] ?? 0);
    err += weight * (values[at + 1] ?? 0);
    lat += weight * (values[at + 2] ?? 0);
  }
  return decayedStats(ok, err, lat, minCalls);
}

function decayedStats(ok: number, err: number, lat: number, minCalls: number): WindowStats {
  const calls = ok + err;
  return {
    errorRate: calls > 0 && calls >= minCalls ? err / calls : null,
    calls,
    latencyMs: ok > 0 ? lat / ok : null,
  };
}

/**
 * The circuit from its stored `openUntil` (0 = no key): open until then, half_open for a window
 * after it (the key's TTL is openMs + windowMs from opening), then closed. Derived from the value,
 * not only from the key's existence, so a replica whose clock and the store's disagree slightly
 * still reads the same state as the others.
 */
export function circuitState(openUntil: number, now: number, windowMs: number): ModelHealth["circuit"] {
  if (openUntil <= 0) return "closed";
  if (now < openUntil) return "open";
  return now < openUntil + windowMs ? "half_open" : "closed";
}
