import {
  type AddEntry,
  type CounterStore,
  CounterStoreUnavailableError,
  type ReserveEntry,
  type ReserveResult,
} from "./counters.js";
import {
  assertAddEntries,
  assertKey,
  assertKeys,
  assertReserveEntries,
  assertTtlMs,
  isSafeCounterValue,
  overflowError,
  parseCounterValue,
} from "./validate.js";

export interface MemoryCounterStoreOptions {
  /** Clock in ms; inject a fake one to test TTLs without sleeping. Default Date.now. */
  now?: () => number;
  /** How often expired keys are dropped even if nobody reads them. Default 1000 ms. */
  sweepIntervalMs?: number;
}

/** Values are kept as strings, like Redis, so getValue on a counter key returns the same "42". */
interface Slot {
  value: string;
  /** Clock time after which the key is gone; null = no expiry. */
  expiresAt: number | null;
}

/**
 * An in-process CounterStore for a single replica (standalone mode, tests). It returns what the
 * Redis store returns for the same calls: same values, failedIndex, TTLs and errors. Atomicity
 * comes from JavaScript itself: each operation runs synchronously to completion, with no await
 * between reading and writing, so concurrent calls cannot interleave.
 */
export function createMemoryCounterStore(options: MemoryCounterStoreOptions = {}): CounterStore {
  const now = options.now ?? Date.now;
  const slots = new Map<string, Slot>();
  let closed = false;

  // Expiry is checked lazily on access; the sweep bounds memory for keys nobody reads again
  // (per-window budget keys). unref: it must not keep the process alive.
  const sweeper = setInterval(() => {
    const at = now();
    for (const [key, slot] of slots) {
      if (isExpired(slot, at)) slots.delete(key);
    }
  }, options.sweepIntervalMs ?? 1000);
  sweeper.unref();

  function assertOpen(): void {
    if (closed) throw new CounterStoreUnavailableError("counter store unavailable (memory): store is closed");
  }

  /** Redis semantics: a key is still there at exactly its expiry time (PTTL 0), gone after it. */
  function isExpired(slot: Slot, at: number): boolean {
    return slot.expiresAt !== null && at > slot.expiresAt;
  }

  function liveSlot(key: string, at: number): Slot | undefined {
    const slot = slots.get(key);
    if (slot && isExpired(slot, at)) {
      slots.delete(key);
      return undefined;
    }
    return slot;
  }

  /** Read every distinct key once, before any check or write (same order as the Lua scripts). */
  function readCounters(entries: readonly AddEntry[], at: number): Map<string, number> {
    const stored = new Map<string, number>();
    for (const { key } of entries) {
      if (!stored.has(key)) stored.set(key, parseCounterValue(liveSlot(key, at)?.value, key));
    }
    return stored;
  }

  /** INCRBY + optional PEXPIRE: a new TTL replaces the old one, no TTL keeps it. */
  function apply(entry: AddEntry, at: number): number {
    const slot = liveSlot(entry.key, at);
    const value = parseCounterValue(slot?.value, entry.key) + entry.amount;
    const expiresAt = entry.ttlMs !== undefined ? at + entry.ttlMs : (slot?.expiresAt ?? null);
    slots.set(entry.key, { value: String(value), expiresAt });
    return value;
  }

  return {
    kind: "memory",

    async reserve(entries: ReserveEntry[]): Promise<ReserveResult> {
      assertReserveEntries(entries, "reserve");
      assertOpen();
      const at = now();
      const stored = readCounters(entries, at);
      const running = new Map(stored);
      for (const [index, entry] of entries.entries()) {
        const next = running.get(entry.key)! + entry.amount;
        if (!isSafeCounterValue(next)) throw overflowError(entry.key);
        const limit = entry.limit;
        // amount 0 is a pure check: an exhausted scope (value == limit) is refused.
        if (
          limit !== undefined &&
          limit !== null &&
          (next > limit || (entry.amount === 0 && next >= limit))
        ) {
          return { ok: false, failedIndex: index, values: entries.map(({ key }) => stored.get(key)!) };
        }
        running.set(entry.key, next);
      }
      return { ok: true, values: entries.map((entry) => apply(entry, at)) };
    },

    async add(entries: AddEntry[]): Promise<number[]> {
      assertAddEntries(entries, "add");
      assertOpen();
      const at = now();
      const running = readCounters(entries, at);
      for (const entry of entries) {
        const next = running.get(entry.key)! + entry.amount;
        if (!isSafeCounterValue(next)) throw overflowError(entry.key);
        running.set(entry.key, next);
      }
      return entries.map((entry) => apply(entry, at));
    },

    async get(keys: string[]): Promise<number[]> {
      assertKeys(keys, "get");
      assertOpen();
      const at = now();
      return keys.map((key) => parseCounterValue(liveSlot(key, at)?.value, key));
    },

    async setValue(key: string, value: string, ttlMs: number): Promise<void> {
      assertKey(key, "setValue");
      if (typeof value !== "string") throw new TypeError("setValue: value must be a string");
      assertTtlMs(ttlMs, "setValue ttlMs");
      assertOpen();
      slots.set(key, { value, expiresAt: now() + ttlMs });
    },

    async getValue(key: string): Promise<string | null> {
      assertKey(key, "getValue");
      assertOpen();
      return liveSlot(key, now())?.value ?? null;
    },

    async ttlMs(key: string): Promise<number | null> {
      assertKey(key, "ttlMs");
      assertOpen();
      const at = now();
      const slot = liveSlot(key, at);
      return slot && slot.expiresAt !== null ? slot.expiresAt - at : null;
    },

    async delete(keys: string[]): Promise<void> {
      assertKeys(keys, "delete");
      assertOpen();
      for (const key of keys) slots.delete(key);
    },

    async ping(): Promise<void> {
      assertOpen();
    },

    async close(): Promise<void> {
      closed = true;
      clearInterval(sweeper);
      slots.clear();
    },
  };
}
