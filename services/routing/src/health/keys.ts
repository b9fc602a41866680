/**
 * Where a model's health lives in the counter store (after the store's own key prefix, if any):
 *
 *   <prefix><modelId>:<bucketStart>:ok        successes in the bucket starting at that epoch ms
 *   <prefix><modelId>:<bucketStart>:err       errors in that bucket
 *   <prefix><modelId>:<bucketStart>:lat       summed time to headers of those successes, ms
 *   <prefix><modelId>:circuit                 openUntil, epoch ms (absent = closed)
 *   <prefix><modelId>:cooldown                cooldownUntil, epoch ms (absent = no cooldown)
 *   <prefix><modelId>:degraded                1 while the model is degraded (absent = not)
 *   <prefix><modelId>:error-event:<minute>    provider.error events claimed in that minute
 *
 * `prefix` defaults to "health:". Every value is an integer string, so a single `get` can read
 * buckets and state keys together (one round trip per snapshot). Model ids may contain ":": every
 * suffix either has no ":" or ends in a segment that is not itself a suffix, so two models' keys
 * never collide.
 */
export interface HealthKeys {
  bucket(modelId: string, bucketStart: number, field: BucketField): string;
  circuit(modelId: string): string;
  cooldown(modelId: string): string;
  degraded(modelId: string): string;
  errorEvent(modelId: string, minuteStart: number): string;
}

export type BucketField = "ok" | "err" | "lat";

export const BUCKET_FIELDS: readonly BucketField[] = ["ok", "err", "lat"];

export const DEFAULT_HEALTH_KEY_PREFIX = "health:";

export function healthKeys(prefix: string = DEFAULT_HEALTH_KEY_PREFIX): HealthKeys {
  return {
    bucket: (modelId, bucketStart, field) => `${prefix}${modelId}:${bucketStart}:${field}`,
    circuit: (modelId) => `${prefix}${modelId}:circuit`,
    cooldown: (modelId) => `${prefix}${modelId}:cooldown`,
    degraded: (modelId) => `${prefix}${modelId}:degraded`,
    errorEvent: (modelId, minuteStart) => `${prefix}${modelId}:error-event:${minuteStart}`,
  };
}

/** A model's keys as `ModelKeyCache` hands them out (read-only: they are shared between calls). */
export interface ModelKeys {
  readonly circuit: string;
  readonly cooldown: string;
  readonly degraded: string;
  /** ok, err, lat of each bucket of the window, newest first (the order of `bucketStarts`). */
  readonly window: readonly string[];
}

/**
 * The keys of each model, built once instead of on every snapshot and record: the state keys for
 * as long as the model is cached, the bucket keys until the window moves on (once per bucket).
 * The layout is `healthKeys`' own; this only remembers its answers.
 */
export interface ModelKeyCache {
  /** `modelId`'s keys, its window being the `count` buckets from `current` back, `bucketMs` apart. */
  get(modelId: string, current: number, bucketMs: number, count: number): ModelKeys;
}

/** Models whose keys are kept; past it the cache starts over (ids of deleted models age out). */
export const MAX_CACHED_MODELS = 10_000;

interface CachedKeys {
  circuit: string;
  cooldown: string;
  degraded: string;
  window: readonly string[];
  current: number;
  bucketMs: number;
  count: number;
}

export function modelKeyCache(keys: HealthKeys, maxModels: number = MAX_CACHED_MODELS): ModelKeyCache {
  const byModel = new Map<string, CachedKeys>();
  return {
    get(modelId, current, bucketMs, count) {
      let cached = byModel.get(modelId);
      if (cached === undefined) {
        if (byModel.size >= maxModels) byModel.clear();
        cached = {
          circuit: keys.circuit(modelId),
          cooldown: keys.cooldown(modelId),
          degraded: keys.degraded(modelId),
          window: [],
          current: Number.NaN,
          bucketMs: 0,
          count: 0,
        };
        byModel.set(modelId, cached);
      }
      if (cached.current !== current || cached.bucketMs !== bucketMs || cached.count !== count) {
        const window: string[] = [];
        for (let index = 0; index < count; index++) {
          // As `bucketStarts`: the current bucket, then each one before it.
          const start = current - index * bucketMs;
          window.push(
            keys.bucket(modelId, start, "ok"),
            keys.bucket(modelId, start, "err"),
            keys.bucket(modelId, start, "lat"),
          );
        }
        // A new array, not an update: a caller still holding the previous window keeps it intact.
        cached.window = window;
        cached.current = current;
        cached.bucketMs = bucketMs;
        cached.count = count;
      }
      return cached;
    },
  };
}
