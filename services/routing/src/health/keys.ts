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
