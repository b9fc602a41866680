import type { Hold, HoldResult, ReserveEntry, SettleResult, SlidingWindow } from "./counters.js";
import {
  advance,
  type CounterEntry,
  type KeyState,
  type Keyspace,
  nextValues,
  readEntries,
  reserveEntries,
  valuesOf,
} from "./memory-keyspace.js";
import { isLiveBucket, windowAt } from "./sliding-window.js";
import { overflowError } from "./validate.js";

/**
 * Holds for the memory store: the same records, pending set and steps as lua-hold-scripts.ts (see
 * there for the format), kept in maps beside the keyspace. Records expire on the store's TTL clock
 * (keepMs); which holds are due is decided by the nowMs given to expireHolds, like the score range
 * of the Redis sorted set.
 */

interface RecordedEntry {
  key: string;
  tag: string;
  amount: number;
  sliding?: SlidingWindow;
  /** The bucket the hold added to (sliding windows). */
  field?: string;
}

interface HoldRecord {
  id: string;
  state: "held" | "expired";
  entries: RecordedEntry[];
  /** TTL clock time after which the record is gone (keepMs). */
  expiresAt: number;
}

/** A hold entry as a counter change at the caller's clock (entryAt in lua-scripts.ts). */
export function counterEntry(entry: ReserveEntry, nowMs: number): CounterEntry {
  const window = windowAt(entry.sliding, nowMs);
  return {
    key: entry.key,
    amount: entry.amount,
    limit: entry.limit,
    ttlMs: entry.ttlMs,
    window,
    field: window?.field,
  };
}

/** A recorded entry at the clock of a settle or expiry: its window now, the bucket it used then. */
function recordedEntry(entry: RecordedEntry, nowMs: number): CounterEntry & { tag: string } {
  return {
    key: entry.key,
    tag: entry.tag,
    amount: entry.amount,
    window: windowAt(entry.sliding, nowMs),
    field: entry.field,
  };
}

/** counts in lua-hold-scripts.ts: the key still exists and (sliding) the hold's bucket is live. */
function counts(state: KeyState, entry: CounterEntry): boolean {
  if (!state.exists) return false;
  return entry.window === undefined || isLiveBucket(entry.field!, entry.window);
}

/** Sorted-set order: score, then member bytes (members share the record-key prefix). */
function byScoreThenMember(a: [string, number], b: [string, number]): number {
  return a[1] - b[1] || Buffer.compare(Buffer.from(a[0]), Buffer.from(b[0]));
}

export function createHoldBook(keyspace: Keyspace) {
  const records = new Map<string, HoldRecord>();
  /** The pending sorted set: id -> expiresAtMs. */
  const pending = new Map<string, number>();

  function liveRecord(id: string, at: number): HoldRecord | undefined {
    const record = records.get(id);
    if (record && at > record.expiresAt) {
      records.delete(id);
      return undefined;
    }
    return record;
  }

  return {
    reserveHold(hold: Hold, nowMs: number, at: number): HoldResult {
      const entries = hold.entries.map((entry) => counterEntry(entry, nowMs));
      if (liveRecord(hold.id, at)) {
        return { ok: true, replayed: true, values: valuesOf(entries, readEntries(keyspace, entries, at)) };
      }
      const result = reserveEntries(keyspace, entries, at);
      if (!result.ok) return { ...result, replayed: false };
      records.set(hold.id, {
        id: hold.id,
        state: "held",
        entries: hold.entries.map((entry, index) => ({
          key: entry.key,
          tag: entry.tag,
          amount: entry.amount,
          ...(entry.sliding && { sliding: { ...entry.sliding }, field: entries[index]!.field }),
        })),
        expiresAt: at + hold.keepMs,
      });
      pending.set(hold.id, hold.expiresAtMs);
      return { ...result, replayed: false };
    },

    settleHold(id: string, actual: Map<string, number>, nowMs: number, at: number): SettleResult {
      const record = liveRecord(id, at);
      if (!record) return { settled: false, values: [] };
      // An expired hold already gave its amounts back: the actual usage is added in full.
      const held = record.state === "held";
      const entries = record.entries.map((entry) => recordedEntry(entry, nowMs));
      const states = readEntries(keyspace, entries, at);
      const deltas = new Map<number, number>();
      const values = entries.map((entry, index) => {
        const state = states.get(entry.key)!;
        const delta = (actual.get(entry.tag) ?? 0) - (held ? entry.amount : 0);
        if (delta !== 0 && counts(state, entry)) {
          const next = nextValues(state, entry.field, delta);
          if (next === null) throw overflowError(entry.key);
          advance(state, entry.field, next);
          deltas.set(index, delta);
        }
        return state.value;
      });
      for (const [index, delta] of deltas) {
        const entry = entries[index]!;
        keyspace.writeKey(entry.key, states.get(entry.key)!, entry.field, delta, at);
      }
      records.delete(id);
      pending.delete(id);
      return { settled: true, values };
    },

    expireHolds(nowMs: number, max: number, at: number): string[] {
      const due = [...pending].filter(([, score]) => score <= nowMs).sort(byScoreThenMember);
      const expired: string[] = [];
      for (const [id] of due.slice(0, max)) {
        const record = liveRecord(id, at);
        if (record?.state === "held") {
          // Each entry on its own; a key no longer usable as a counter is skipped (see the script).
          for (const entry of record.entries.map((recorded) => recordedEntry(recorded, nowMs))) {
            const state = keyspace.readKey(entry.key, entry.window, at);
            if (entry.amount === 0 || typeof state === "string" || !counts(state, entry)) continue;
            if (nextValues(state, entry.field, -entry.amount) === null) continue;
            keyspace.writeKey(entry.key, state, entry.field, -entry.amount, at);
          }
          record.state = "expired";
          expired.push(record.id);
        }
        pending.delete(id);
      }
      return expired;
    },

    sweep(at: number): void {
      for (const id of records.keys()) liveRecord(id, at);
    },

    clear(): void {
      records.clear();
      pending.clear();
    },
  };
}
