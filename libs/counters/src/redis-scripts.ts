import type { Redis } from "ioredis";
import type { HashAddEntry, HoldEntry, ReadEntry, ReserveResult } from "./counters.js";

/** How the Redis store talks to its scripts: argument encoding and reply decoding. */

/**
 * A script reply: a status (and failedIndex) as integers, then values as decimal strings, which
 * ioredis parses exactly (ioredis 6 parses integer replies within ~58 of 2^53 inexactly: it adds
 * the next digit's byte before subtracting '0').
 */
export type ScriptReply = [number, ...(number | string)[]];

/** The scripts registered with `defineCommand` (EVALSHA, falling back to EVAL on NOSCRIPT). */
export interface ScriptedRedis extends Redis {
  countersReserve(numKeys: number, ...keysAndArgs: string[]): Promise<ScriptReply>;
  countersRead(numKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
  countersReserveHold(numKeys: number, ...keysAndArgs: string[]): Promise<ScriptReply>;
  countersSettleHold(numKeys: number, ...keysAndArgs: string[]): Promise<ScriptReply>;
  countersExpireHolds(numKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
  countersHashAddOnce(numKeys: number, ...keysAndArgs: string[]): Promise<number>;
  countersHashGetAll(numKeys: number, ...keysAndArgs: string[]): Promise<string[]>;
}

/** An entry as the scripts take it: ENTRY_STRIDE strings (see lua-scripts.ts). */
export function entryArgs(entry: ReadEntry & Partial<Omit<HoldEntry, "key" | "sliding">>): string[] {
  return [
    String(entry.amount ?? 0),
    entry.limit === undefined || entry.limit === null ? "" : String(entry.limit),
    entry.ttlMs === undefined ? "" : String(entry.ttlMs),
    entry.sliding ? String(entry.sliding.bucketMs) : "",
    entry.sliding ? String(entry.sliding.buckets) : "",
    entry.tag ?? "",
  ];
}

export const numbers = (values: (number | string)[]): number[] => values.map(Number);

/** A reserve-shaped reply: {1, value...} or {0, failedIndex, value...}. */
export function reserveReply(reply: ScriptReply): ReserveResult {
  if (reply[0] === 1) return { ok: true, values: numbers(reply.slice(1)) };
  return { ok: false, failedIndex: Number(reply[1]), values: numbers(reply.slice(2)) };
}

/** A hashAddOnce entry as the script takes it: HASH_ENTRY_STRIDE strings (see lua-hash-scripts.ts). */
export function hashEntryArgs(entry: HashAddEntry): string[] {
  return [entry.field, String(entry.amount), entry.ttlMs === undefined ? "" : String(entry.ttlMs)];
}

/** HGETALL's flat reply as an object of numbers (the script checked every value is an integer). */
export function hashFromFlat(flat: string[]): Record<string, number> {
  const hash: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) hash[flat[i]!] = Number(flat[i + 1]);
  return hash;
}
