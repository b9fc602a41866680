import type { AttemptOutcome, HealthEvent } from "./types.js";

/**
 * The `provider.*` events of SPEC.md's events table, built in one place so their details stay the
 * same wherever they are raised. Details carry ids, numbers and short reasons only (never a secret).
 */

/** Rounded for readable notifications; the exact numbers stay in the store. */
const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

const iso = (epochMs: number) => new Date(epochMs).toISOString();

/** A non-retryable provider error (5xx, auth failure); throttled by the caller. */
export function providerErrorEvent(outcome: AttemptOutcome): HealthEvent {
  return {
    event: "provider.error",
    severity: "critical",
    modelId: outcome.modelId,
    projectId: outcome.projectId,
    details: { modelId: outcome.modelId, status: outcome.status, reason: outcome.reason ?? null },
  };
}

export function rateLimitedEvent(
  outcome: AttemptOutcome,
  cooldownMs: number,
  cooldownUntil: number,
): HealthEvent {
  return {
    event: "provider.rate_limited",
    severity: "warning",
    modelId: outcome.modelId,
    projectId: outcome.projectId,
    details: {
      modelId: outcome.modelId,
      status: outcome.status,
      retryAfterMs: outcome.retryAfterMs ?? null,
      cooldownMs,
      cooldownUntil: iso(cooldownUntil),
    },
  };
}

export function degradedEvent(
  outcome: AttemptOutcome,
  stats: { errorRate: number; calls: number },
  windowMs: number,
  threshold: number,
  openUntil: number,
): HealthEvent {
  return {
    event: "provider.degraded",
    severity: "warning",
    modelId: outcome.modelId,
    projectId: outcome.projectId,
    details: {
      modelId: outcome.modelId,
      errorRate: round(stats.errorRate, 4),
      calls: round(stats.calls, 2),
      windowMs,
      threshold,
      openUntil: iso(openUntil),
    },
  };
}

/** `via`: what showed the recovery (a successful half-open probe, or the error rate falling). */
export function recoveredEvent(
  outcome: AttemptOutcome,
  stats: { errorRate: number | null; calls: number },
  via: "probe_succeeded" | "error_rate_fell",
): HealthEvent {
  return {
    event: "provider.recovered",
    severity: "info",
    modelId: outcome.modelId,
    projectId: outcome.projectId,
    details: {
      modelId: outcome.modelId,
      via,
      errorRate: stats.errorRate === null ? null : round(stats.errorRate, 4),
      calls: round(stats.calls, 2),
    },
  };
}
