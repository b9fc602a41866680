export type {
  AddEntry,
  ClockOptions,
  CounterStore,
  HashAddEntry,
  HashMarker,
  Hold,
  HoldEntry,
  HoldResult,
  ReadEntry,
  ReserveEntry,
  ReserveResult,
  SettleResult,
  SlidingWindow,
} from "./counters.js";
export { CounterStoreUnavailableError } from "./counters.js";
export { type CreateCounterStoreOptions, createCounterStore } from "./create-counter-store.js";
export type { CountersLogger } from "./logger.js";
export { createMemoryCounterStore, type MemoryCounterStoreOptions } from "./memory-counter-store.js";
export { createRedisCounterStore, type RedisCounterStoreOptions } from "./redis-counter-store.js";
