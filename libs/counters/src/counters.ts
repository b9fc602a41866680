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
 * nothing is changed. A key is either a plain counter or a sliding window (see SlidingWindow): using
 * it as the other kind (including `get`/`getValue` on a window) throws a `TypeError`, nothing changed.
 *
 * Every method either completes atomically or throws `CounterStoreUnavailableError`; callers fail
 * closed on that error (a budget is never passed unchecked). For `reserve` and `add` that error
 * means "outcome unknown": a command that timed out may still have been applied by Redis. A
 * reservation can then only be held (until its window key expires), never silently granted; an
 * `add` is not idempotent, so retrying it blindly may count twice.
 */

/**
 * A sliding window kept as buckets: the key holds a hash whose fields are bucket indexes
 * (`floor(nowMs / bucketMs)`) and whose values are integers. The key's value is the sum of the
 * fields in the last `buckets` buckets, the current one included (index > current - buckets);
 * older fields are deleted on every write to the key. Usage therefore leaves the window between
 * `buckets - 1` and `buckets` bucket lengths after it was added: never early. The bucket comes from
 * the caller's clock (`ClockOptions.nowMs`), the key's TTL (`ttlMs`) from the store's clock. All
 * entries naming one key in a call must use the same window (else TypeError).
 */
export interface SlidingWindow {
  /** Bucket length, ms; a positive integer. */
  bucketMs: number;
  /** Buckets summed; a positive integer. */
  buckets: number;
}

/** Options shared by the operations that read or write sliding windows and holds. */
export interface ClockOptions {
  /** The caller's clock, Unix ms (default Date.now()); picks the current bucket. Injectable for tests. */
  nowMs?: number;
}

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
  /** Present: the key is a sliding window (see SlidingWindow); the amount goes to the current bucket. */
  sliding?: SlidingWindow;
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
  /** As in `ReserveEntry.sliding`: the amount goes to the current bucket. */
  sliding?: SlidingWindow;
}

/** A key to read: a plain counter, or a sliding window summed at the caller's clock. */
export interface ReadEntry {
  key: string;
  sliding?: SlidingWindow;
}

/**
 * A reservation held on counters until it is settled, released or expires. `tag` names what the
 * entry's amount measures (e.g. a budget metric): settling gives the actual amount per tag.
 */
export interface HoldEntry extends ReserveEntry {
  tag: string;
}

export interface Hold {
  /** Caller-chosen id; reserving an id that is already held (or was) is a replay, not a second hold. */
  id: string;
  entries: HoldEntry[];
  /** Unix ms after which `expireHolds` gives the hold's amounts back. */
  expiresAtMs: number;
  /**
   * How long the hold's record is kept, ms from now (> expiresAtMs - now): a settle arriving after
   * the hold expired still counts its actual usage until then.
   */
  keepMs: number;
}

export type HoldResult =
  | (ReserveResult & { ok: true; replayed: false })
  | (ReserveResult & { ok: false; replayed: false })
  /** The id was already reserved: nothing changed; `values` are the current values of the entries. */
  | { ok: true; replayed: true; values: number[] };

export interface SettleResult {
  /** False when the hold is unknown (never made, already settled or released, or its record expired). */
  settled: boolean;
  /** The entries' values after the correction (same order as the hold's entries); empty when not settled. */
  values: number[];
}

/**
 * The marker of a `hashAddOnce`: the call happens at most once per (key, field) while the marker
 * hash lives. `ttlMs` (a positive integer) is set on the marker key when the marker is added.
 */
export interface HashMarker {
  key: string;
  /** Non-empty; e.g. the id of the event being counted. */
  field: string;
  ttlMs: number;
}

/** One hash field to increment (HINCRBY); the hash is a plain hash of integer fields. */
export interface HashAddEntry {
  key: string;
  /** Non-empty. */
  field: string;
  /** Safe integer, may be negative or 0 (0 still creates the field). */
  amount: number;
  /** Expire the key this long after this change, ms (a positive integer); absent = keep its expiry. */
  ttlMs?: number;
}

export interface CounterStore {
  readonly kind: "redis" | "memory";
  /**
   * All-or-nothing: if for every entry `value(key) + amount <= limit`, add every amount and return
   * the new values; otherwise change nothing and return the current values. One atomic step.
   * An entry with amount 0 needs `value(key) < limit`. An empty list succeeds without a round trip.
   */
  reserve(entries: ReserveEntry[], options?: ClockOptions): Promise<ReserveResult>;
  /** Add (possibly negative) amounts atomically, no limits; returns the new values. */
  add(entries: AddEntry[], options?: ClockOptions): Promise<number[]>;
  /** Current values of plain counters; a missing key is 0 (a sliding window: TypeError, use `read`). */
  get(keys: string[]): Promise<number[]>;
  /** Current values of plain counters and sliding windows (summed at the caller's clock); missing = 0. */
  read(entries: ReadEntry[], options?: ClockOptions): Promise<number[]>;
  /**
   * `reserve` that remembers what it added under the hold's id, in the same atomic step: the
   * amounts stay counted until `settleHold` replaces them by the actual usage, or `expireHolds`
   * gives them back once `expiresAtMs` has passed (a caller that died cannot leak them). A refused
   * hold stores nothing. An empty entry list still records the hold. The id replays while its record
   * exists (held, or expired and within keepMs); once settled or released the id is free again.
   * `keepMs` must exceed `expiresAtMs - nowMs` (TypeError otherwise): a record that vanished before
   * its expiry could never give its amounts back.
   */
  reserveHold(hold: Hold, options?: ClockOptions): Promise<HoldResult>;
  /**
   * Atomically replace a hold's amounts by `actual[tag]` (a missing tag is 0), once: a second settle
   * answers `settled: false`. A hold that had already expired adds its actual amounts in full.
   * Corrections go to the bucket (sliding) or key the hold added to; a key or bucket that has since
   * expired or left its window is not recreated (that usage no longer counts anywhere). Limits are not
   * checked. Safe to retry after `CounterStoreUnavailableError`: a settle that went through answers
   * `settled: false` the second time. A key that no longer holds a counter of its kind throws a
   * TypeError (an overflow a RangeError) and nothing changes; the hold stays held.
   */
  settleHold(id: string, actual: Record<string, number>, options?: ClockOptions): Promise<SettleResult>;
  /**
   * Give back the amounts of up to `max` holds whose `expiresAtMs` <= nowMs and mark them expired
   * (their records stay until `keepMs`, so a late settle still counts). Returns the ids expired.
   * Safe to run from every replica at once: each hold is expired at most once, never after a settle.
   * Due holds go earliest first. A key that no longer holds a usable counter is skipped (nothing is
   * given back to it) rather than failing the call, so one damaged key cannot stall expiry.
   */
  expireHolds(nowMs: number, max: number): Promise<string[]>;
  /**
   * Count something once: atomically, if `marker.field` is absent from the hash `marker.key`, set it
   * (HSETNX), increment every entry's hash field by its amount (entries apply in order), set the
   * TTLs given (the marker key gets `marker.ttlMs`) and return true; otherwise change nothing and
   * return false. Replicas racing on one marker: exactly one returns true. A hash field holding a
   * non-integer throws a TypeError, a result outside the safe integer range a RangeError, a key of
   * another kind (a plain counter or string) a TypeError; in all three cases nothing changes. An
   * empty entry list only sets the marker. For `CounterStoreUnavailableError` the outcome is
   * unknown, but a retry is safe: it answers false if the first call went through.
   */
  hashAddOnce(marker: HashMarker, entries: HashAddEntry[]): Promise<boolean>;
  /**
   * Every field of an integer hash (written by `hashAddOnce`), as numbers; `{}` when the key is
   * absent. A non-integer field or a key of another kind throws a TypeError.
   */
  hashGetAll(key: string): Promise<Record<string, number>>;
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
