import type { ReserveResult } from "./counters.js";
import type { WindowAt } from "./sliding-window.js";
import { isSafeCounterValue, notIntegerError, overflowError, wrongKindError } from "./validate.js";

/**
 * The memory store's keys, with Redis semantics: strings (plain counters, setValue) and hashes
 * (sliding windows), lazily expired on a TTL clock. The counter steps below mirror the helpers in
 * lua-scripts.ts one for one (readKey, nextValues, writeKey, readEntries, reserveEntries); keep the
 * two in sync.
 */

type Slot =
  | { kind: "string"; value: string; expiresAt: number | null }
  | { kind: "hash"; fields: Map<string, string>; expiresAt: number | null };

/** What a script reads from a key: see readKey in lua-scripts.ts. */
export interface KeyState {
  exists: boolean;
  value: number;
  /** Sliding windows: the live buckets. */
  fields: Map<string, number>;
  /** Sliding windows: the buckets the next write deletes. */
  stale: string[];
}

export type ReadFailure = "WRONG_KIND" | "NOT_INTEGER" | "OVERFLOW";

/** One entry of a script: a counter change; `field` is the bucket it goes to (sliding windows). */
export interface CounterEntry {
  key: string;
  amount: number;
  limit?: number | null;
  ttlMs?: number;
  window?: WindowAt;
  field?: string;
}

export function failureError(kind: ReadFailure, key: string): Error {
  if (kind === "OVERFLOW") return overflowError(key);
  return kind === "WRONG_KIND" ? wrongKindError(key) : notIntegerError(key);
}

const EXACT_INTEGER = /^-?[1-9][0-9]*$/;

/** exactInteger in lua-scripts.ts: the integer, or null. */
function exactInteger(raw: string): number | null {
  if (raw !== "0" && !EXACT_INTEGER.test(raw)) return null;
  const value = Number(raw);
  return isSafeCounterValue(value) ? value : null;
}

export type Keyspace = ReturnType<typeof createKeyspace>;

export function createKeyspace() {
  const slots = new Map<string, Slot>();

  /** Redis semantics: a key is still there at exactly its expiry time (PTTL 0), gone after it. */
  const isExpired = (slot: Slot, at: number) => slot.expiresAt !== null && at > slot.expiresAt;

  function live(key: string, at: number): Slot | undefined {
    const slot = slots.get(key);
    if (slot && isExpired(slot, at)) {
      slots.delete(key);
      return undefined;
    }
    return slot;
  }

  function readKey(key: string, window: WindowAt | undefined, at: number): KeyState | ReadFailure {
    const slot = live(key, at);
    const state: KeyState = { exists: false, value: 0, fields: new Map(), stale: [] };
    if (window === undefined) {
      if (slot?.kind === "hash") return "WRONG_KIND";
      if (!slot) return state;
      const value = exactInteger(slot.value);
      return value === null ? "NOT_INTEGER" : { ...state, exists: true, value };
    }
    if (slot?.kind === "string") return "WRONG_KIND";
    for (const [field, raw] of slot?.fields ?? []) {
      const index = exactInteger(field);
      const value = exactInteger(raw);
      if (index === null || value === null) return "NOT_INTEGER";
      if (index < window.oldest) {
        state.stale.push(field);
      } else {
        state.exists = true;
        state.value += value;
        state.fields.set(field, value);
      }
    }
    return isSafeCounterValue(state.value) ? state : "OVERFLOW";
  }

  /** INCRBY, or HINCRBY the bucket then HDEL the stale buckets. Expiry is kept (none for a new key). */
  function writeKey(
    key: string,
    state: KeyState,
    field: string | undefined,
    amount: number,
    at: number,
  ): void {
    const slot = live(key, at);
    if (field === undefined) {
      const value = slot?.kind === "string" ? Number(slot.value) : 0;
      slots.set(key, { kind: "string", value: String(value + amount), expiresAt: slot?.expiresAt ?? null });
      return;
    }
    const hash =
      slot?.kind === "hash"
        ? slot
        : { kind: "hash" as const, fields: new Map<string, string>(), expiresAt: null };
    hash.fields.set(field, String(Number(hash.fields.get(field) ?? 0) + amount));
    for (const stale of state.stale) hash.fields.delete(stale);
    state.stale = [];
    slots.set(key, hash);
  }

  function pexpire(key: string, ttlMs: number, at: number): void {
    const slot = live(key, at);
    if (slot) slot.expiresAt = at + ttlMs;
  }

  /** The hash at key (fields as stored), null when missing, "WRONG_KIND" when it is a string. */
  function readHash(key: string, at: number): ReadonlyMap<string, string> | null | "WRONG_KIND" {
    const slot = live(key, at);
    if (!slot) return null;
    return slot.kind === "hash" ? slot.fields : "WRONG_KIND";
  }

  /** HSET of one field (HSETNX and HINCRBY once checked); creates the hash without expiry. */
  function setHashField(key: string, field: string, value: string, at: number): void {
    const slot = live(key, at);
    const hash =
      slot?.kind === "hash"
        ? slot
        : { kind: "hash" as const, fields: new Map<string, string>(), expiresAt: null };
    hash.fields.set(field, value);
    slots.set(key, hash);
  }

  return {
    live,
    readKey,
    writeKey,
    pexpire,
    readHash,
    setHashField,
    /** SET key value PX ttlMs: replaces a key of either kind. */
    setString(key: string, value: string, expiresAt: number): void {
      slots.set(key, { kind: "string", value, expiresAt });
    },
    /** GET: null when missing; a hash is the other kind (WRONGTYPE in Redis). */
    getString(key: string, at: number): string | null {
      const slot = live(key, at);
      if (slot?.kind === "hash") throw wrongKindError(key);
      return slot?.value ?? null;
    },
    delete(key: string): void {
      slots.delete(key);
    },
    sweep(at: number): void {
      for (const [key, slot] of slots) if (isExpired(slot, at)) slots.delete(key);
    },
    clear(): void {
      slots.clear();
    },
  };
}

/** nextValues in lua-scripts.ts: the key's and bucket's values after adding, or null on overflow. */
export function nextValues(
  state: KeyState,
  field: string | undefined,
  amount: number,
): { value: number; bucket: number } | null {
  const value = state.value + amount;
  if (!isSafeCounterValue(value)) return null;
  const bucket = field === undefined ? 0 : (state.fields.get(field) ?? 0) + amount;
  return isSafeCounterValue(bucket) ? { value, bucket } : null;
}

export function advance(
  state: KeyState,
  field: string | undefined,
  next: { value: number; bucket: number },
): void {
  state.value = next.value;
  if (field !== undefined) state.fields.set(field, next.bucket);
}

/** Read every distinct key once, before any check or write; throws on the first bad key. */
export function readEntries(keyspace: Keyspace, entries: readonly CounterEntry[], at: number) {
  const states = new Map<string, KeyState>();
  for (const entry of entries) {
    if (states.has(entry.key)) continue;
    const state = keyspace.readKey(entry.key, entry.window, at);
    if (typeof state === "string") throw failureError(state, entry.key);
    states.set(entry.key, state);
  }
  return states;
}

export function valuesOf(entries: readonly CounterEntry[], states: Map<string, KeyState>): number[] {
  return entries.map((entry) => states.get(entry.key)!.value);
}

/** reserveEntries in lua-scripts.ts: all-or-nothing check against the running values, then write. */
export function reserveEntries(
  keyspace: Keyspace,
  entries: readonly CounterEntry[],
  at: number,
): ReserveResult {
  const states = readEntries(keyspace, entries, at);
  const stored = valuesOf(entries, states);
  const values: number[] = [];
  for (const [index, entry] of entries.entries()) {
    const state = states.get(entry.key)!;
    const next = nextValues(state, entry.field, entry.amount);
    if (next === null) throw overflowError(entry.key);
    const limit = entry.limit;
    // amount 0 is a pure check: an exhausted scope (value == limit) is refused.
    if (
      limit !== undefined &&
      limit !== null &&
      (next.value > limit || (entry.amount === 0 && next.value >= limit))
    ) {
      return { ok: false, failedIndex: index, values: stored };
    }
    advance(state, entry.field, next);
    values.push(next.value);
  }
  for (const entry of entries) {
    keyspace.writeKey(entry.key, states.get(entry.key)!, entry.field, entry.amount, at);
    if (entry.ttlMs !== undefined) keyspace.pexpire(entry.key, entry.ttlMs, at);
  }
  return { ok: true, values };
}
