import type { HealthSettings } from "./types.js";

/**
 * Defaults for every project without `routing.health` overrides. A minute of history in 10 s
 * buckets is enough to see an outage within seconds while a few stray errors (fewer than
 * `minCalls`) never trip a circuit; the 30 s half-life makes the last ~30 s count about twice as
 * much as the 30 s before, so a recovered upstream is not held back by old errors for long.
 */
export const DEFAULT_HEALTH_SETTINGS: Readonly<HealthSettings> = Object.freeze({
  windowMs: 60_000,
  bucketMs: 10_000,
  halfLifeMs: 30_000,
  minCalls: 5,
  errorRateThreshold: 0.5,
  openMs: 30_000,
  defaultCooldownMs: 30_000,
});

/**
 * Upper bound for every duration setting (24 h). Durations become TTLs and epoch offsets in the
 * counter store; a typo like 3600000000 must not park a key (or a circuit) there for weeks.
 */
export const MAX_HEALTH_DURATION_MS = 86_400_000;

/**
 * Most buckets one window may have. Every `snapshot` reads 3 keys per bucket per model on each
 * Route call, so a 1 h window in 1 s buckets (3600 buckets) must not get through.
 */
export const MAX_HEALTH_BUCKETS = 60;

type Check = (value: number) => boolean;

const isDurationMs: Check = (value) =>
  Number.isSafeInteger(value) && value > 0 && value <= MAX_HEALTH_DURATION_MS;

/** What each setting accepts. Durations are integers because they become TTLs (the store rejects fractions). */
const CHECKS: Record<keyof HealthSettings, Check> = {
  windowMs: isDurationMs,
  bucketMs: isDurationMs,
  halfLifeMs: (value) => value > 0 && value <= MAX_HEALTH_DURATION_MS,
  minCalls: (value) => value >= 0 && value <= 1_000_000,
  errorRateThreshold: (value) => value > 0 && value <= 1,
  openMs: isDurationMs,
  defaultCooldownMs: isDurationMs,
};

const NAMES = Object.keys(CHECKS) as (keyof HealthSettings)[];

export interface CheckedHealthSettings {
  settings: HealthSettings;
  /** Names of the overrides that were ignored (wrong type, out of range, inconsistent). */
  ignored: string[];
}

/**
 * `base` with the valid fields of `overrides` applied. Overrides come from project configuration
 * (JSON), so anything may be there at runtime: a field that is not a finite number in its range is
 * ignored (the base value stays) rather than failing the Route call. `windowMs` and `bucketMs` are
 * checked as a pair (a bucket no longer than the window, at most `MAX_HEALTH_BUCKETS` buckets); an
 * inconsistent pair falls back to the base pair. Unknown fields are ignored silently.
 */
export function checkHealthSettings(
  overrides?: Partial<HealthSettings> | null,
  base: Readonly<HealthSettings> = DEFAULT_HEALTH_SETTINGS,
): CheckedHealthSettings {
  const settings: HealthSettings = { ...base };
  const ignored: string[] = [];
  if (overrides === null || overrides === undefined || typeof overrides !== "object") {
    return { settings, ignored };
  }
  const given = overrides as Record<string, unknown>;
  for (const name of NAMES) {
    const value = given[name];
    if (value === undefined) continue;
    if (typeof value === "number" && Number.isFinite(value) && CHECKS[name](value)) settings[name] = value;
    else ignored.push(name);
  }
  if (!isValidWindow(settings.windowMs, settings.bucketMs)) {
    for (const name of ["windowMs", "bucketMs"] as const) {
      if (settings[name] !== base[name]) ignored.push(name);
    }
    settings.windowMs = base.windowMs;
    settings.bucketMs = base.bucketMs;
  }
  return { settings, ignored };
}

/** `checkHealthSettings` without the list of ignored fields: what the store uses on every call. */
export function mergeHealthSettings(
  overrides?: Partial<HealthSettings> | null,
  base: Readonly<HealthSettings> = DEFAULT_HEALTH_SETTINGS,
): HealthSettings {
  return checkHealthSettings(overrides, base).settings;
}

function isValidWindow(windowMs: number, bucketMs: number): boolean {
  return bucketMs <= windowMs && Math.ceil(windowMs / bucketMs) <= MAX_HEALTH_BUCKETS;
}
