/**
 * The shared counter store: budgets, health and cooldown state shared across replicas. Two
 * implementations pass one contract suite (test/counters.contract.test.ts): Redis (atomic Lua
 * scripts, short command timeouts so a frozen Redis fails fast) and an in-process store (standalone)
 * that returns the same results for the same calls.
 *
 * All amounts are integers (money is micro-USD), exact up to 2^53. Arguments are validated before
 * the store is touched: a non-integer or unsafe amount or limit, a non-positive TTL or an empty key
 * throws a `TypeError`. A counter key that holds a non-integer string (written by `setValue`) throws
 * a `TypeError` too, and a result outside the safe integer range a `RangeError`; in both cases
 * nothing is changed.
 *
 * Every method either completes atomically or throws `CounterStoreUnavailableError`; callers fail
 * closed on that error (a budget is never passed unchecked). For `reserve` and `add` that error
 * means "outcome unknown": a command that timed out may still have been applied by Redis. A
 * reservation can then only be held (until its window key expires), never silently granted; an
 * `add` is not idempotent, so retrying it blindly may count twice.
 */

export interface ReserveEntry {
  key: string;
  /**
   * Amount to add (a safe integer, may be negative). With 0 the key is only checked: it passes while
   * the value is strictly below the limit, so an exhausted scope (value == limit) is refused.
   */
  amount: number;
  /** Maximum the key's value may reach after adding; null or absent = no limit. */
  limit?: number | null;
  /**
   * Expire the key this long after this change, ms (window keys); a positive integer. Absent = the
   * key keeps whatever expiry it had (none for a new key).
   */
  ttlMs?: number;
}

/**
 * `values[i]` belongs to `entries[i]`. On success it is the key's value after that entry was added
 * (entries naming the same key apply in order, each checked against the running value).
 */
export type ReserveResult =
  | { ok: true; values: number[] }
  /**
   * Nothing was changed (values, TTLs). `failedIndex` is the first entry whose limit would be
   * exceeded; `values` are the stored values as they were (missing = 0).
   */
  | { ok: false; failedIndex: number; values: number[] };

export interface AddEntry {
  key: string;
  /** Safe integer, may be negative or 0 (a missing key is created with the result). */
  amount: number;
  /** As in `ReserveEntry.ttlMs`. */
  ttlMs?: number;
}

export interface CounterStore {
  readonly kind: "redis" | "memory";
  /**
   * All-or-nothing: if for every entry `value(key) + amount <= limit`, add every amount and return
   * the new values; otherwise change nothing and return the current values. One atomic step.
   * An entry with amount 0 needs `value(key) < limit`. An empty list succeeds without a round trip.
   */
  reserve(entries: ReserveEntry[]): Promise<ReserveResult>;
  /** Add (possibly negative) amounts atomically, no limits; returns the new values. */
  add(entries: AddEntry[]): Promise<number[]>;
  /** Current values; a missing key is 0. */
  get(keys: string[]): Promise<number[]>;
  /** Set a string value with a TTL in ms, a positive integer (cooldowns, circuit state). */
  setValue(key: string, value: string, ttlMs: number): Promise<void>;
  /** The string value, or null when absent or expired. */
  getValue(key: string): Promise<string | null>;
  /** Remaining TTL in ms, or null when the key is absent or has no expiry. */
  ttlMs(key: string): Promise<number | null>;
  /** Remove keys; missing keys are ignored. */
  delete(keys: string[]): Promise<void>;
  /** Liveness check; throws CounterStoreUnavailableError when the store cannot answer. */
  ping(): Promise<void>;
  /** Release the connection / timers. Idempotent; later calls throw CounterStoreUnavailableError. */
  close(): Promise<void>;
}

/** The store did not answer in time or is unreachable. Callers fail closed. */
export class CounterStoreUnavailableError extends Error {
  override readonly name = "CounterStoreUnavailableError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
