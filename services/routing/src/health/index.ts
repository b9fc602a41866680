export {
  createHealthStore,
  type HealthStoreOptions,
  MAX_COOLDOWN_MS,
  PROVIDER_ERROR_EVENT_INTERVAL_MS,
} from "./health-store.js";
export { DEFAULT_HEALTH_KEY_PREFIX, healthKeys } from "./keys.js";
export {
  type CheckedHealthSettings,
  checkHealthSettings,
  DEFAULT_HEALTH_SETTINGS,
  MAX_HEALTH_BUCKETS,
  MAX_HEALTH_DURATION_MS,
  mergeHealthSettings,
} from "./settings.js";
export type { AttemptOutcome, HealthEvent, HealthSettings, HealthStore, ModelHealth } from "./types.js";
