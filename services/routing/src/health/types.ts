/**
 * Shared health of upstream models: what the routing engine reads (a snapshot per model) and what
 * ingress reports after every attempt. Kept in the counter store (Redis in distributed mode, the
 * in-process store in standalone), so every routing replica and every ingress sees the same state.
 */

/** One upstream attempt as ingress saw it. */
export interface AttemptOutcome {
  modelId: string;
  projectId: string;
  /** success: a 2xx answer; error: 5xx, network failure, timeout, auth failure; rate_limited: 429. */
  kind: "success" | "error" | "rate_limited";
  /** HTTP status of the upstream answer; 0 for network failures and timeouts. */
  status: number;
  /** Time to the upstream's response headers, ms. */
  latencyMs: number;
  /** From the 429's Retry-After, ms. */
  retryAfterMs?: number;
  /** Short reason for events and traces (never a secret). */
  reason?: string;
}

export interface ModelHealth {
  /** Error share of the recent window with older buckets decayed, 0..1; null below `minCalls`. */
  errorRate: number | null;
  /** Calls in the window, decayed the same way (so comparable with `minCalls`). */
  calls: number;
  /** closed: normal; open: excluded until `openUntil`; half_open: the open period passed, on probation. */
  circuit: "closed" | "open" | "half_open";
  openUntil?: number;
  /** After a 429: excluded until this epoch ms. */
  cooldownUntil?: number;
  /** Mean time to headers of successful calls in the window, ms; null when none. */
  latencyMs: number | null;
}

/** Settings with their defaults (`DEFAULT_HEALTH_SETTINGS`); a project's `routing.health` overrides them. */
export interface HealthSettings {
  /** Length of the error-rate window, ms. */
  windowMs: number;
  /** Bucket size inside the window, ms. */
  bucketMs: number;
  /** Half-life of a bucket's weight, ms (older buckets count less). */
  halfLifeMs: number;
  /** Fewer decayed calls than this: no error rate (not enough evidence). */
  minCalls: number;
  /** Error rate at or above which a model is degraded (and its circuit opens). */
  errorRateThreshold: number;
  /** How long an opened circuit stays open, ms. */
  openMs: number;
  /** Cooldown after a 429 without Retry-After, ms. */
  defaultCooldownMs: number;
}

/** A state change worth an event (`provider.*`); emitted once per change per replica that saw it. */
export interface HealthEvent {
  event: "provider.error" | "provider.rate_limited" | "provider.degraded" | "provider.recovered";
  severity: "info" | "warning" | "critical";
  modelId: string;
  projectId: string;
  details: Record<string, unknown>;
}

export interface HealthStore {
  /** Record one attempt; returns the events it causes (the caller publishes them). */
  record(outcome: AttemptOutcome, settings?: Partial<HealthSettings>): Promise<HealthEvent[]>;
  /** Health of these models now; models never seen are healthy (closed, no rate, no latency). */
  snapshot(modelIds: string[], settings?: Partial<HealthSettings>): Promise<Map<string, ModelHealth>>;
}
