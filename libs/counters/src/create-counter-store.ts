import type { CounterStore } from "./counters.js";
import type { CountersLogger } from "./logger.js";
import { createMemoryCounterStore } from "./memory-counter-store.js";
import { createRedisCounterStore } from "./redis-counter-store.js";

export interface CreateCounterStoreOptions {
  /** Set in every multi-replica deployment: counters must be shared. Unset = in-process store. */
  redisUrl?: string;
  /** Redis only: prefix for every key. */
  keyPrefix?: string;
  /** Redis only: per-command timeout, default 250 ms. */
  commandTimeoutMs?: number;
  logger?: CountersLogger;
}

/**
 * The store for this process: Redis when `redisUrl` is set, otherwise the in-process store, which
 * is only correct while a single replica serves traffic (standalone mode).
 */
export function createCounterStore(options: CreateCounterStoreOptions = {}): CounterStore {
  if (options.redisUrl) {
    return createRedisCounterStore({
      url: options.redisUrl,
      keyPrefix: options.keyPrefix,
      commandTimeoutMs: options.commandTimeoutMs,
      logger: options.logger,
    });
  }
  options.logger?.info({ kind: "memory" }, "counter store: in-process (single replica only)");
  return createMemoryCounterStore();
}
