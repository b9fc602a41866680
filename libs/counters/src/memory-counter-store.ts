import {
  type AddEntry,
  type ClockOptions,
  type CounterStore,
  CounterStoreUnavailableError,
  type HashAddEntry,
  type HashMarker,
  type Hold,
  type HoldResult,
  type ReadEntry,
  type ReserveEntry,
  type ReserveResult,
  type SettleResult,
} from "./counters.js";
import { hashAddOnce, hashGetAll } from "./memory-hashes.js";
import { counterEntry, createHoldBook } from "./memory-holds.js";
import { createKeyspace, readEntries, reserveEntries, valuesOf } from "./memory-keyspace.js";
import {
  actualEntries,
  assertAddEntries,
  assertExpireArguments,
  assertHashAddOnce,
  assertHold,
  assertKey,
  assertKeys,
  assertReadEntries,
  assertReserveEntries,
  assertTtlMs,
  resolveNowMs,
} from "./validate.js";

export interface MemoryCounterStoreOptions {
  /**
   * Clock in ms for TTLs (keys, hold records); inject a fake one to test them without sleeping.
   * Default Date.now. Sliding windows and hold expiry use the callers' `nowMs` instead, like Redis.
   */
  now?: () => number;
  /** How often expired keys are dropped even if nobody reads them. Default 1000 ms. */
  sweepIntervalMs?: number;
}

/**
 * An in-process CounterStore for a single replica (standalone mode, tests). It returns what the
 * Redis store returns for the same calls: same values, failedIndex, TTLs and errors, by running the
 * steps of the Lua scripts (memory-keyspace.ts, memory-holds.ts). Atomicity comes from JavaScript
 * itself: each operation runs synchronously to completion, with no await between reading and
 * writing, so concurrent calls cannot interleave.
 */
export function createMemoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const now = options.now ?? Date.now;
  const keyspace = createKeyspace();
  const holds = createHoldBook(keyspace);
  let closed = false;

  // Expiry is checked lazily on access; the sweep bounds memory for keys nobody reads again
  // (per-window budget keys). unref: it must not keep the process alive.
  const sweeper = setInterval(() => {
    const at = now();
    keyspace.sweep(at);
    holds.sweep(at);
  }, options.sweepIntervalMs ?? 1000);
  sweeper.unref();

  function assertOpen(): void {
    if (closed) throw new CounterStoreUnavailableError("counter store unavailable (memory): store is closed");
  }

  /** The read script, for get and read. */
  function readValues(entries: readonly ReadEntry[], nowMs: number): number[] {
    const counters = entries.map((entry) => counterEntry({ ...entry, amount: 0 }, nowMs));
    return valuesOf(counters, readEntries(keyspace, counters, now()));
  }

  return {
    kind: "memory",

    async reserve(entries: ReserveEntry[], clock?: ClockOptions): Promise<ReserveResult> {
      assertReserveEntries(entries, "reserve");
      const nowMs = resolveNowMs(clock, "reserve");
      assertOpen();
      if (entries.length === 0) return { ok: true, values: [] };
      const counters = entries.map((entry) => counterEntry(entry, nowMs));
      return reserveEntries(keyspace, counters, now());
    },

    async add(entries: AddEntry[], clock?: ClockOptions): Promise<number[]> {
      assertAddEntries(entries, "add");
      const nowMs = resolveNowMs(clock, "add");
      assertOpen();
      if (entries.length === 0) return [];
      // reserve without limits: always admitted.
      const counters = entries.map((entry) => counterEntry({ ...entry, limit: null }, nowMs));
      return reserveEntries(keyspace, counters, now()).values;
    },

    async get(keys: string[]): Promise<number[]> {
      assertKeys(keys, "get");
      assertOpen();
      return readValues(
        keys.map((key) => ({ key })),
        Date.now(),
      );
    },

    async read(entries: ReadEntry[], clock?: ClockOptions): Promise<number[]> {
      assertReadEntries(entries, "read");
      const nowMs = resolveNowMs(clock, "read");
      assertOpen();
      return readValues(entries, nowMs);
    },

    async reserveHold(hold: Hold, clock?: ClockOptions): Promise<HoldResult> {
      const nowMs = resolveNowMs(clock, "reserveHold");
      assertHold(hold, nowMs, "reserveHold");
      assertOpen();
      return holds.reserveHold(hold, nowMs, now());
    },

    async settleHold(
      id: string,
      actual: Record<string, number>,
      clock?: ClockOptions,
    ): Promise<SettleResult> {
      assertKey(id, "settleHold id");
      const pairs = actualEntries(actual, "settleHold");
      const nowMs = resolveNowMs(clock, "settleHold");
      assertOpen();
      return holds.settleHold(id, new Map(pairs), nowMs, now());
    },

    async expireHolds(nowMs: number, max: number): Promise<string[]> {
      assertExpireArguments(nowMs, max, "expireHolds");
      assertOpen();
      return holds.expireHolds(nowMs, max, now());
    },

    async hashAddOnce(marker: HashMarker, entries: HashAddEntry[]): Promise<boolean> {
      assertHashAddOnce(marker, entries, "hashAddOnce");
      assertOpen();
      return hashAddOnce(keyspace, marker, entries, now());
    },

    async hashGetAll(key: string): Promise<Record<string, number>> {
      assertKey(key, "hashGetAll");
      assertOpen();
      return hashGetAll(keyspace, key, now());
    },

    async setValue(key: string, value: string, ttlMs: number): Promise<void> {
      assertKey(key, "setValue");
      if (typeof value !== "string") throw new TypeError("setValue: value must be a string");
      assertTtlMs(ttlMs, "setValue ttlMs");
      assertOpen();
      keyspace.setString(key, value, now() + ttlMs);
    },

    async getValue(key: string): Promise<string | null> {
      assertKey(key, "getValue");
      assertOpen();
      return keyspace.getString(key, now());
    },

    async ttlMs(key: string): Promise<number | null> {
      assertKey(key, "ttlMs");
      assertOpen();
      const at = now();
      const slot = keyspace.live(key, at);
      return slot && slot.expiresAt !== null ? slot.expiresAt - at : null;
    },

    async delete(keys: string[]): Promise<void> {
      assertKeys(keys, "delete");
      assertOpen();
      for (const key of keys) keyspace.delete(key);
    },

    async ping(): Promise<void> {
      assertOpen();
    },

    async close(): Promise<void> {
      closed = true;
      clearInterval(sweeper);
      keyspace.clear();
      holds.clear();
    },
  };
}
