import type { HashAddEntry, HashMarker } from "./counters.js";
import type { Keyspace } from "./memory-keyspace.js";
import { isSafeCounterValue, notIntegerError, overflowError, wrongKindError } from "./validate.js";

/**
 * hashAddOnce and hashGetAll for the memory store: the steps of lua-hash-scripts.ts in the same
 * order (check the marker, read and check every entry, then write), so both stores return the same
 * results and errors. Runs synchronously: nothing interleaves between the check and the writes.
 */

const EXACT_INTEGER = /^-?[1-9][0-9]*$/;

/** exactInteger in lua-scripts.ts. */
function exactInteger(raw: string): number | null {
  if (raw !== "0" && !EXACT_INTEGER.test(raw)) return null;
  const value = Number(raw);
  return isSafeCounterValue(value) ? value : null;
}

export function hashAddOnce(
  keyspace: Keyspace,
  marker: HashMarker,
  entries: readonly HashAddEntry[],
  at: number,
): boolean {
  const markerHash = keyspace.readHash(marker.key, at);
  if (markerHash === "WRONG_KIND") throw wrongKindError(marker.key);
  if (markerHash?.has(marker.field)) return false;
  const running = new Map<string, number>();
  const next: string[] = [];
  for (const entry of entries) {
    const id = `${entry.key}\u0000${entry.field}`;
    const value = (running.get(id) ?? storedField(keyspace, entry, at)) + entry.amount;
    if (!isSafeCounterValue(value)) throw overflowError(entry.key);
    running.set(id, value);
    next.push(String(value));
  }
  keyspace.setHashField(marker.key, marker.field, "1", at);
  entries.forEach((entry, index) => {
    keyspace.setHashField(entry.key, entry.field, next[index]!, at);
    if (entry.ttlMs !== undefined) keyspace.pexpire(entry.key, entry.ttlMs, at);
  });
  keyspace.pexpire(marker.key, marker.ttlMs, at);
  return true;
}

/** The entry's field as stored (missing = 0); throws like the script on another kind or a non-integer. */
function storedField(keyspace: Keyspace, entry: HashAddEntry, at: number): number {
  const hash = keyspace.readHash(entry.key, at);
  if (hash === "WRONG_KIND") throw wrongKindError(entry.key);
  const raw = hash?.get(entry.field);
  if (raw === undefined) return 0;
  const value = exactInteger(raw);
  if (value === null) throw notIntegerError(entry.key);
  return value;
}

export function hashGetAll(keyspace: Keyspace, key: string, at: number): Record<string, number> {
  const hash = keyspace.readHash(key, at);
  if (hash === "WRONG_KIND") throw wrongKindError(key);
  const result: Record<string, number> = {};
  for (const [field, raw] of hash ?? []) {
    const value = exactInteger(raw);
    if (value === null) throw notIntegerError(key);
    result[field] = value;
  }
  return result;
}
