import type {
  AddEntry,
  ClockOptions,
  HashAddEntry,
  HashMarker,
  Hold,
  ReadEntry,
  ReserveEntry,
  SlidingWindow,
} from "./counters.js";

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

function assertPositiveInteger(value: unknown, what: string): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0) {
    throw new TypeError(`${what} must be a positive integer, got ${String(value)}`);
  }
}

function assertSliding(sliding: SlidingWindow | undefined, what: string): void {
  if (sliding === undefined) return;
  if (typeof sliding !== "object" || sliding === null) throw new TypeError(`${what} must be an object`);
  assertPositiveInteger(sliding.bucketMs, `${what}.bucketMs`);
  assertPositiveInteger(sliding.buckets, `${what}.buckets`);
}

/**
 * Entries of one call that name the same key must agree on what it is (a plain counter, or a sliding
 * window with the same bucket length and count): the key has one value, read one way.
 */
function assertConsistentKinds(entries: readonly ReadEntry[], where: string): void {
  const kinds = new Map<string, string>();
  entries.forEach((entry, index) => {
    const kind = entry.sliding ? `${entry.sliding.bucketMs}/${entry.sliding.buckets}` : "plain";
    const seen = kinds.get(entry.key);
    if (seen === undefined) kinds.set(entry.key, kind);
    else if (seen !== kind) {
      throw new TypeError(
        `${where}[${index}]: key "${entry.key}" is named twice with different sliding windows`,
      );
    }
  });
}

export function assertReadEntries(entries: ReadEntry[], where: string): void {
  if (!Array.isArray(entries)) throw new TypeError(`${where}: entries must be an array`);
  entries.forEach((entry, index) => {
    assertKey(entry?.key, `${where}[${index}]`);
    assertSliding(entry.sliding, `${where}[${index}].sliding`);
  });
  assertConsistentKinds(entries, where);
}

export function assertAddEntries(entries: AddEntry[], where: string): void {
  assertReadEntries(entries, where);
  entries.forEach((entry, index) => {
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

/** The caller's clock: `options.nowMs` (a non-negative safe integer) or Date.now(). */
export function resolveNowMs(options: ClockOptions | undefined, where: string): number {
  if (options === undefined) return Date.now();
  if (typeof options !== "object" || options === null)
    throw new TypeError(`${where}: options must be an object`);
  if (options.nowMs === undefined) return Date.now();
  assertNonNegativeInteger(options.nowMs, `${where}: nowMs`);
  return options.nowMs;
}

function assertNonNegativeInteger(value: unknown, what: string): asserts value is number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`${what} must be a non-negative safe integer, got ${String(value)}`);
  }
}

function assertField(field: unknown, what: string): asserts field is string {
  if (typeof field !== "string" || field.length === 0) {
    throw new TypeError(`${what} must be a non-empty string`);
  }
}

/** hashAddOnce's arguments: a marker with a TTL, entries with integer amounts and optional TTLs. */
export function assertHashAddOnce(marker: HashMarker, entries: HashAddEntry[], where: string): void {
  if (typeof marker !== "object" || marker === null)
    throw new TypeError(`${where}: marker must be an object`);
  assertKey(marker.key, `${where} marker`);
  assertField(marker.field, `${where} marker.field`);
  assertTtlMs(marker.ttlMs, `${where} marker.ttlMs`);
  if (!Array.isArray(entries)) throw new TypeError(`${where}: entries must be an array`);
  entries.forEach((entry, index) => {
    assertKey(entry?.key, `${where}[${index}]`);
    assertField(entry.field, `${where}[${index}].field`);
    assertSafeInteger(entry.amount, `${where}[${index}].amount`);
    if (entry.ttlMs !== undefined) assertTtlMs(entry.ttlMs, `${where}[${index}].ttlMs`);
    // The marker is a flag, not a counter: incrementing it in the same call has no clear meaning.
    if (entry.key === marker.key && entry.field === marker.field) {
      throw new TypeError(`${where}[${index}]: an entry cannot name the marker's own field`);
    }
  });
}

export function assertHold(hold: Hold, nowMs: number, where: string): void {
  if (typeof hold !== "object" || hold === null) throw new TypeError(`${where}: hold must be an object`);
  assertKey(hold.id, `${where} id`);
  assertReserveEntries(hold.entries, `${where} entries`);
  hold.entries.forEach((entry, index) => {
    if (typeof entry.tag !== "string" || entry.tag.length === 0) {
      throw new TypeError(`${where} entries[${index}].tag must be a non-empty string`);
    }
  });
  assertSafeInteger(hold.expiresAtMs, `${where} expiresAtMs`);
  assertTtlMs(hold.keepMs, `${where} keepMs`);
  // A record that disappears before the hold expires could never be expired: its amounts would leak.
  if (hold.keepMs <= hold.expiresAtMs - nowMs) {
    throw new TypeError(`${where}: keepMs (${hold.keepMs}) must outlast expiresAtMs - nowMs`);
  }
}

/** The actual amounts of a settle, as [tag, amount] pairs; each a safe integer. */
export function actualEntries(actual: Record<string, number>, where: string): [string, number][] {
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
    throw new TypeError(`${where}: actual must be an object of tag -> amount`);
  }
  const pairs = Object.entries(actual);
  for (const [tag, amount] of pairs) assertSafeInteger(amount, `${where}: actual["${tag}"]`);
  return pairs;
}

export function assertExpireArguments(nowMs: number, max: number, where: string): void {
  assertNonNegativeInteger(nowMs, `${where}: nowMs`);
  assertPositiveInteger(max, `${where}: max`);
}

/** The error both stores throw when a plain operation meets a sliding window key, or the reverse. */
export function wrongKindError(key: string): TypeError {
  return new TypeError(`counter key "${key}" holds the other kind of counter (plain vs sliding window)`);
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
