import type { AddEntry, ReserveEntry } from "./counters.js";

/**
 * Argument checks and value parsing shared by both stores, so that both reject the same inputs with
 * the same errors before any state is touched (Redis is never called with a bad argument).
 */

/** Largest magnitude a counter may hold: beyond it, JS numbers (and Lua doubles) stop being exact. */
export const MAX_COUNTER_VALUE = Number.MAX_SAFE_INTEGER;

/** The integer strings counters accept: no sign on zero, no leading zeros, no spaces. */
const INTEGER_STRING = /^-?(0|[1-9][0-9]*)$/;

export function assertKey(key: unknown, where: string): asserts key is string {
  if (typeof key !== "string" || key.length === 0) {
    throw new TypeError(`${where}: key must be a non-empty string`);
  }
}

function assertSafeInteger(value: unknown, what: string): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value)) {
    throw new TypeError(`${what} must be a safe integer, got ${String(value)}`);
  }
}

/** TTLs are positive integers: PEXPIRE 0 would delete the key, and Redis rejects fractions. */
export function assertTtlMs(ttlMs: unknown, what: string): asserts ttlMs is number {
  if (typeof ttlMs !== "number" || !Number.isSafeInteger(ttlMs) || ttlMs <= 0) {
    throw new TypeError(`${what} must be a positive integer (ms), got ${String(ttlMs)}`);
  }
}

export function assertKeys(keys: string[], where: string): void {
  if (!Array.isArray(keys)) throw new TypeError(`${where}: keys must be an array`);
  for (const key of keys) assertKey(key, where);
}

export function assertAddEntries(entries: AddEntry[], where: string): void {
  if (!Array.isArray(entries)) throw new TypeError(`${where}: entries must be an array`);
  entries.forEach((entry, index) => {
    assertKey(entry?.key, `${where}[${index}]`);
    assertSafeInteger(entry.amount, `${where}[${index}].amount`);
    if (entry.ttlMs !== undefined) assertTtlMs(entry.ttlMs, `${where}[${index}].ttlMs`);
  });
}

export function assertReserveEntries(entries: ReserveEntry[], where: string): void {
  assertAddEntries(entries, where);
  entries.forEach((entry, index) => {
    if (entry.limit !== undefined && entry.limit !== null) {
      assertSafeInteger(entry.limit, `${where}[${index}].limit`);
    }
  });
}

/** The error both stores throw when a counter key holds something other than an integer. */
export function notIntegerError(key: string): TypeError {
  return new TypeError(`counter key "${key}" holds a non-integer value`);
}

/** The error both stores throw when an add would leave the exact (safe integer) range. */
export function overflowError(key: string): RangeError {
  return new RangeError(`counter key "${key}" would leave the safe integer range`);
}

/** Parse a stored value as a counter; null (missing) is 0. Same rule as the Lua scripts. */
export function parseCounterValue(raw: string | null | undefined, key: string): number {
  if (raw === null || raw === undefined) return 0;
  if (!INTEGER_STRING.test(raw)) throw notIntegerError(key);
  const value = Number(raw);
  if (Math.abs(value) > MAX_COUNTER_VALUE) throw notIntegerError(key);
  return value;
}

/** True when a counter may take this value (the scripts check the same bound). */
export function isSafeCounterValue(value: number): boolean {
  return Math.abs(value) <= MAX_COUNTER_VALUE;
}
