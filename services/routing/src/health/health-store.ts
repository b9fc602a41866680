import type { AddEntry, CounterStore } from "@gw/counters";
import { degradedEvent, providerErrorEvent, rateLimitedEvent, recoveredEvent } from "./health-events.js";
import { DEFAULT_HEALTH_KEY_PREFIX, healthKeys, modelKeyCache } from "./keys.js";
import { mergeHealthSettings } from "./settings.js";
import type { AttemptOutcome, HealthEvent, HealthSettings, HealthStore, ModelHealth } from "./types.js";
import {
  bucketCount,
  bucketTtlMs,
  bucketWeights,
  circuitState,
  currentBucketStart,
  flatWindowStats,
  type WindowStats,
} from "./window.js";

export interface HealthStoreOptions {
  /** Clock in epoch ms; every timestamp and bucket key derives from it. Default Date.now. */
  now?: () => number;
  /** Prefix of every health key (after the counter store's own prefix). Default "health:". */
  keyPrefix?: string;
}

/** `provider.error` is raised at most once per model per this window (epoch-aligned), across replicas. */
export const PROVIDER_ERROR_EVENT_INTERVAL_MS = 60_000;

/**
 * Longest cooldown a Retry-After can ask for (24 h). A daily quota legitimately says "tomorrow";
 * anything beyond is a broken header, and it must not become a TTL of years.
 */
export const MAX_COOLDOWN_MS = 86_400_000;

/**
 * The degraded marker outlives its circuit (openMs + windowMs) so a model whose half-open period
 * passed without a probe still gets its `provider.recovered` (or a silent re-open) when traffic
 * returns, instead of a second `provider.degraded` with no recovery in between. It is refreshed on
 * every re-open and expires on its own only after an hour without a decision.
 */
const MIN_DEGRADED_MARKER_TTL_MS = 3_600_000;

/**
 * Shared model health in the counter store (see keys.ts for the layout). Every replica reads and
 * writes the same keys, so all of them route on the same error rates, circuits and cooldowns. The
 * key strings of each model are built once and cached (`modelKeyCache`), not on every call.
 *
 * Round trips. `snapshot`: one `get` for every bucket, circuit and cooldown key of every model.
 * `record` of a success or error: one `add` (this attempt) and one `get` (the rest of the window and
 * the circuit/degraded state) issued together, so one round trip of latency; a state change
 * (degraded, re-opened, recovered) costs one or two more, and those are rare. `record` of a 429:
 * one `setValue`.
 *
 * Errors of the counter store (`CounterStoreUnavailableError`, "outcome unknown" for the `add`)
 * propagate: the caller decides (Route routes without health; ReportOutcome reports the failure).
 * `record` is not idempotent; a blind retry may count an attempt twice.
 */
export function createHealthStore(counters: CounterStore, options: HealthStoreOptions = {}): HealthStore {
  const clock = options.now ?? Date.now;
  const keys = healthKeys(options.keyPrefix ?? DEFAULT_HEALTH_KEY_PREFIX);
  // Every snapshot and record needs each model's keys: built once, not per call and bucket.
  const keyCache = modelKeyCache(keys);

  async function recordRateLimited(
    outcome: AttemptOutcome,
    settings: HealthSettings,
  ): Promise<HealthEvent[]> {
    const now = clock();
    const cooldownMs = cooldownFor(outcome.retryAfterMs, settings.defaultCooldownMs);
    const cooldownUntil = now + cooldownMs;
    // The latest 429 wins, even when an earlier one asked for longer: the newest Retry-After is the
    // upstream's current view (a read-then-max would be a race without an atomic max in the store).
    await counters.setValue(keys.cooldown(outcome.modelId), String(cooldownUntil), cooldownMs);
    return [rateLimitedEvent(outcome, cooldownMs, cooldownUntil)];
  }

  async function recordAttempt(outcome: AttemptOutcome, settings: HealthSettings): Promise<HealthEvent[]> {
    const now = clock();
    const { modelId } = outcome;
    const count = bucketCount(settings);
    const modelKeys = keyCache.get(modelId, currentBucketStart(now, settings), settings.bucketMs, count);
    // ok, err, lat of each bucket in the window (as `bucketStarts`), the current bucket first.
    const bucketKeys = modelKeys.window;
    const ttlMs = bucketTtlMs(settings);
    const failed = outcome.kind === "error";

    // This attempt goes into the current bucket; everything else in the window is read alongside.
    const written: AddEntry[] = failed
      ? [{ key: bucketKeys[1]!, amount: 1, ttlMs }]
      : [
          { key: bucketKeys[0]!, amount: 1, ttlMs },
          { key: bucketKeys[2]!, amount: latencyAmount(outcome.latencyMs), ttlMs },
        ];
    // provider.error: the first replica whose add makes this minute's counter 1 raises it; the rest
    // of a storm only counts. Folded into the same add, so throttling costs no round trip.
    const reportsError = failed && isProviderErrorStatus(outcome.status);
    if (reportsError) {
      const minute = Math.floor(now / PROVIDER_ERROR_EVENT_INTERVAL_MS) * PROVIDER_ERROR_EVENT_INTERVAL_MS;
      written.push({
        key: keys.errorEvent(modelId, minute),
        amount: 1,
        ttlMs: PROVIDER_ERROR_EVENT_INTERVAL_MS,
      });
    }
    const writtenKeys = new Set(written.map((entry) => entry.key));
    const readKeys = [
      ...bucketKeys.filter((key) => !writtenKeys.has(key)),
      modelKeys.circuit,
      modelKeys.degraded,
    ];
    const [added, read] = await Promise.all([counters.add(written), counters.get(readKeys)]);
    // The values after this attempt: what the add returned for its keys, the get for the rest.
    const value = valueReader([...readKeys, ...written.map((entry) => entry.key)], [...read, ...added]);
    const stats = flatWindowStats(
      bucketKeys.map(value),
      0,
      bucketWeights(count, settings),
      settings.minCalls,
    );

    const events: HealthEvent[] = [];
    if (reportsError && added[added.length - 1] === 1) events.push(providerErrorEvent(outcome));
    const transition = await applyTransition(outcome, settings, {
      now,
      stats,
      openUntil: value(modelKeys.circuit),
      degraded: value(modelKeys.degraded) >= 1,
      bucketKeys,
    });
    if (transition) events.push(transition);
    return events;
  }

  /**
   * The circuit breaker. Not degraded: an error rate at or above the threshold (with enough calls)
   * opens the circuit and marks the model degraded; the marker is claimed with `reserve` (limit 1),
   * so when replicas race exactly one raises `provider.degraded`. Degraded: a success once the open
   * period is over (the half-open probe), or the rate falling below half the threshold, recovers
   * it; an error while half-open (or a rate back over the threshold after the circuit expired)
   * re-opens it silently. Successes and errors while open are in-flight answers and change nothing.
   */
  async function applyTransition(
    outcome: AttemptOutcome,
    settings: HealthSettings,
    state: {
      now: number;
      stats: WindowStats;
      openUntil: number;
      degraded: boolean;
      bucketKeys: readonly string[];
    },
  ): Promise<HealthEvent | null> {
    const { modelId } = outcome;
    const { now, stats } = state;
    const circuit = circuitState(state.openUntil, now, settings.windowMs);
    const overThreshold = stats.errorRate !== null && stats.errorRate >= settings.errorRateThreshold;

    if (!state.degraded) {
      if (overThreshold) {
        // Circuit first: if the marker cannot be written, the model is excluded anyway and the next
        // record retries the claim (and raises the event) instead of the event being lost.
        const openUntil = await openCircuit(modelId, now, settings);
        const claim = await counters.reserve([
          { key: keys.degraded(modelId), amount: 1, limit: 1, ttlMs: degradedMarkerTtlMs(settings) },
        ]);
        if (!claim.ok) return null;
        return degradedEvent(
          outcome,
          { errorRate: stats.errorRate!, calls: stats.calls },
          settings.windowMs,
          settings.errorRateThreshold,
          openUntil,
        );
      }
      // A circuit without a marker (a re-open that raced a recovery): a good probe just closes it.
      if (circuit === "half_open" && outcome.kind === "success")
        await counters.delete([keys.circuit(modelId)]);
      return null;
    }

    const probeSucceeded = outcome.kind === "success" && circuit !== "open";
    const rateFell = stats.errorRate !== null && stats.errorRate < settings.errorRateThreshold / 2;
    if (probeSucceeded || rateFell) {
      // Closing resets the window too: the errors that opened the circuit are still in it and would
      // re-open it on the next error. One DEL, atomic in Redis.
      await counters.delete([keys.degraded(modelId), keys.circuit(modelId), ...state.bucketKeys]);
      return recoveredEvent(outcome, stats, probeSucceeded ? "probe_succeeded" : "error_rate_fell");
    }
    if (outcome.kind === "error" && (circuit === "half_open" || (circuit === "closed" && overThreshold))) {
      await Promise.all([
        openCircuit(modelId, now, settings),
        // Keep the marker alive as long as the circuit (amount 0 only refreshes its TTL).
        counters.add([{ key: keys.degraded(modelId), amount: 0, ttlMs: degradedMarkerTtlMs(settings) }]),
      ]);
    }
    return null;
  }

  async function openCircuit(modelId: string, now: number, settings: HealthSettings): Promise<number> {
    const openUntil = now + settings.openMs;
    await counters.setValue(keys.circuit(modelId), String(openUntil), settings.openMs + settings.windowMs);
    return openUntil;
  }

  return {
    async record(outcome, overrides) {
      assertOutcome(outcome);
      const settings = mergeHealthSettings(overrides);
      return outcome.kind === "rate_limited"
        ? recordRateLimited(outcome, settings)
        : recordAttempt(outcome, settings);
    },

    async snapshot(modelIds, overrides) {
      const settings = mergeHealthSettings(overrides);
      const now = clock();
      const ids = [...new Set(modelIds)];
      // Every bucket, circuit and cooldown key of every model in one get: per model its window
      // (ok, err, lat per bucket, newest first), then circuit, then cooldown.
      const current = currentBucketStart(now, settings);
      const count = bucketCount(settings);
      const readKeys: string[] = [];
      for (const modelId of ids) {
        const { window, circuit, cooldown } = keyCache.get(modelId, current, settings.bucketMs, count);
        for (let index = 0; index < window.length; index++) readKeys.push(window[index]!);
        readKeys.push(circuit, cooldown);
      }
      const values = await counters.get(readKeys);
      // Read by position (the layout above), a missing value being 0 as the store reads it.
      const weights = bucketWeights(count, settings);
      const stride = 3 * count + 2;
      const result = new Map<string, ModelHealth>();
      for (let index = 0; index < ids.length; index++) {
        const offset = index * stride;
        const stats = flatWindowStats(values, offset, weights, settings.minCalls);
        const openUntil = values[offset + 3 * count] ?? 0;
        const cooldownUntil = values[offset + 3 * count + 1] ?? 0;
        const circuit = circuitState(openUntil, now, settings.windowMs);
        const health: ModelHealth = {
          errorRate: stats.errorRate,
          calls: stats.calls,
          circuit,
          latencyMs: stats.latencyMs,
        };
        if (circuit !== "closed") health.openUntil = openUntil;
        if (cooldownUntil > now) health.cooldownUntil = cooldownUntil;
        result.set(ids[index]!, health);
      }
      return result;
    },
  };
}

/** Lookup by key over the answer of a `get` (missing = 0, as the store reads it). */
function valueReader(readKeys: readonly string[], values: readonly number[]): (key: string) => number {
  const byKey = new Map(readKeys.map((key, index) => [key, values[index] ?? 0]));
  return (key) => byKey.get(key) ?? 0;
}

/** SPEC: provider.error is for non-retryable provider errors: 5xx and auth failures (401, 403). */
export function isProviderErrorStatus(status: number): boolean {
  return status >= 500 || status === 401 || status === 403;
}

/** Retry-After when it is a usable number (0 = retry now: a 1 ms cooldown), else the default. */
export function cooldownFor(retryAfterMs: number | undefined, defaultCooldownMs: number): number {
  if (typeof retryAfterMs !== "number" || !Number.isFinite(retryAfterMs) || retryAfterMs < 0) {
    return defaultCooldownMs;
  }
  return Math.max(1, Math.ceil(Math.min(retryAfterMs, MAX_COOLDOWN_MS)));
}

/** A time to headers beyond an hour is a measuring bug; capped so one cannot skew the mean for long. */
const MAX_LATENCY_MS = 3_600_000;

function degradedMarkerTtlMs(settings: HealthSettings): number {
  return Math.max(MIN_DEGRADED_MARKER_TTL_MS, settings.openMs + 2 * settings.windowMs);
}

/** Counters take integers: latency is rounded, and a nonsense value counts the success without time. */
function latencyAmount(latencyMs: number): number {
  if (typeof latencyMs !== "number" || !Number.isFinite(latencyMs) || latencyMs <= 0) return 0;
  return Math.min(Math.round(latencyMs), MAX_LATENCY_MS);
}

const KINDS = new Set<AttemptOutcome["kind"]>(["success", "error", "rate_limited"]);

function assertOutcome(outcome: AttemptOutcome): void {
  if (typeof outcome?.modelId !== "string" || outcome.modelId.length === 0) {
    throw new TypeError("health.record: modelId must be a non-empty string");
  }
  if (!KINDS.has(outcome.kind)) throw new TypeError(`health.record: unknown kind ${String(outcome.kind)}`);
}
