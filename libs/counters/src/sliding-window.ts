import type { SlidingWindow } from "./counters.js";

/**
 * Bucket math of sliding windows, as the Lua scripts do it (`windowAt` in lua-scripts.ts): the
 * current bucket is floor(nowMs / bucketMs), a bucket is live while its index >= current - buckets + 1.
 * Both sides divide IEEE doubles, so they pick the same bucket for the same clock.
 */
export interface WindowAt {
  /** The oldest live bucket index. */
  oldest: number;
  /** The current bucket index as a hash field (decimal string). */
  field: string;
}

export function windowAt(sliding: SlidingWindow | undefined, nowMs: number): WindowAt | undefined {
  if (sliding === undefined) return undefined;
  const current = Math.floor(nowMs / sliding.bucketMs);
  return { oldest: current - sliding.buckets + 1, field: String(current) };
}

/** Whether the bucket `field` (a decimal index) is still inside the window. */
export function isLiveBucket(field: string, window: WindowAt): boolean {
  return Number(field) >= window.oldest;
}
