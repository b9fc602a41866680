export { type ConfigStore, type ConfigStoreOptions, createConfigStore } from "./config-store.js";
export { TtlCache } from "./ttl-cache.js";
export type {
  BudgetConfig,
  BudgetMetric,
  ModelConfig,
  PricingTier,
  ProjectConfig,
  ProjectRoutingConfig,
  TokenConfig,
} from "./types.js";
export { DEFAULT_ROUTING_MODEL_TIMEOUT_MS } from "./types.js";
