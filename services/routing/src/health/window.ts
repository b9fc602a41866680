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
  const current = Math.floor(now / settings.bucketMs) * settings.bucketMs;
  const count = Math.ceil(settings.windowMs / settings.bucketMs);
  return Array.from({ length: count }, (_, index) => current - index * settings.bucketMs);
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
  const calls = ok + err;
  return {
    errorRate: calls > 0 && calls >= settings.minCalls ? err / calls : null,
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
