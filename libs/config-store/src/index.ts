export { toBudgets, toSpendGroup, toTokenLimits, toWindow } from "./budget-rows.js";
export { type ConfigStore, type ConfigStoreOptions, createConfigStore } from "./config-store.js";
export { TtlCache } from "./ttl-cache.js";
export type {
  BudgetConfig,
  BudgetMetric,
  ModelConfig,
  PeriodWindow,
  PricingTier,
  ProjectConfig,
  ProjectRoutingConfig,
  RollingWindow,
  RuntimeSettings,
  SpendGroupConfig,
  TokenConfig,
  TokenLimitConfig,
} from "./types.js";
export {
  BUDGET_METRICS,
  DEFAULT_ROUTING_MODEL_TIMEOUT_MS,
  PERIOD_WINDOWS,
  ROLLING_WINDOWS,
} from "./types.js";
export {
  applyRuntimeLogLevel,
  followConfigChanges,
  type WatchConfigLogger,
  watchConfigChanges,
} from "./watch-config.js";
