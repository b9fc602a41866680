import { Redis } from "ioredis";
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
import type { CountersLogger } from "./logger.js";
import { HASH_ADD_ONCE_LUA, HASH_GET_ALL_LUA } from "./lua-hash-scripts.js";
import {
  EXPIRE_HOLDS_LUA,
  holdRecordKey,
  PENDING_HOLDS_KEY,
  RESERVE_HOLD_LUA,
  SETTLE_HOLD_LUA,
} from "./lua-hold-scripts.js";
import { READ_LUA, RESERVE_LUA } from "./lua-scripts.js";
import {
  mapRedisError,
  redactRedisUrl,
  waitUntilReady,
  watchConnection,
  withDeadline,
} from "./redis-connection.js";
import {
  entryArgs,
  hashEntryArgs,
  hashFromFlat,
  numbers,
  reserveReply,
  type ScriptedRedis,
} from "./redis-scripts.js";
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

export interface RedisCounterStoreOptions {
  /** redis:// or rediss:// URL; may carry credentials and a db number. */
  url: string;
  /** Prepended to every key by ioredis (e.g. "gw:prod:"); isolates deployments and test runs. */
  keyPrefix?: string;
  /** A command without a reply after this long fails with CounterStoreUnavailableError. Default 250. */
  commandTimeoutMs?: number;
  /** Bound on establishing the TCP connection. Default 2000. */
  connectTimeoutMs?: number;
  logger?: CountersLogger;
}

/** Longest pause between reconnect attempts: recover within a second once Redis is back. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * A CounterStore on Redis (standalone; a multi-key script needs all keys on one node, so on Redis
 * Cluster the keys would need a common hash tag; the hold scripts also touch keys they read from
 * hold records, which only standalone Redis allows). Every call either completes or fails with
 * CounterStoreUnavailableError within about `commandTimeoutMs` (waiting for the connection and the
 * command each get that long): no offline queue, no replay of unanswered commands after a reconnect.
 */
export function createRedisCounterStore(options: RedisCounterStoreOptions): CounterStore {
  const commandTimeoutMs = options.commandTimeoutMs ?? 250;
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const target = redactRedisUrl(options.url);
  const client = new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    connectTimeout: connectTimeoutMs,
    // How long a closing socket may linger before it is destroyed (ioredis default 2 s, which also
    // holds the process open after close() when the socket had already failed).
    disconnectTimeout: commandTimeoutMs,
    // A socket that stops answering is dropped and redialled rather than kept half-open forever.
    socketTimeout: Math.max(connectTimeoutMs, commandTimeoutMs * 4),
    // Fail now instead of queueing while disconnected: a queued reserve would outlive its caller.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    // Never resend a reserve the caller already saw fail: it would consume budget nobody uses.
    autoResendUnfulfilledCommands: false,
    retryStrategy: (attempt) => Math.min(attempt * 100, MAX_RECONNECT_DELAY_MS),
    // ioredis 6 speaks RESP3; "legacy" pins v5 reply shapes (it is the default, stated for clarity).
    replyMapping: "legacy",
  }) as ScriptedRedis;
  client.defineCommand("countersReserve", { lua: RESERVE_LUA });
  client.defineCommand("countersRead", { lua: READ_LUA });
  client.defineCommand("countersReserveHold", { lua: RESERVE_HOLD_LUA });
  client.defineCommand("countersSettleHold", { lua: SETTLE_HOLD_LUA });
  client.defineCommand("countersExpireHolds", { lua: EXPIRE_HOLDS_LUA });
  client.defineCommand("countersHashAddOnce", { lua: HASH_ADD_ONCE_LUA });
  client.defineCommand("countersHashGetAll", { lua: HASH_GET_ALL_LUA });
  const connection = watchConnection(client, target, options.logger);
  let closed = false;

  const unavailable = (reason: string, cause?: unknown) => {
    // A command error says why itself; a connection-level failure gets the last socket error.
    const lastError = cause === undefined ? connection.lastError() : undefined;
    const detail = lastError ? `${reason} (last error: ${lastError})` : reason;
    return new CounterStoreUnavailableError(`counter store unavailable (redis ${target}): ${detail}`, {
      cause,
    });
  };

  /** Run one command with the readiness wait and error mapping every method shares. */
  async function run<T>(keys: readonly string[], command: () => Promise<T>): Promise<T> {
    if (closed) throw unavailable("store is closed");
    try {
      await waitUntilReady(client, commandTimeoutMs, unavailable);
      // Our deadline, not ioredis's commandTimeout: see withDeadline.
      return await withDeadline(command(), commandTimeoutMs, () =>
        unavailable(`Command timed out: no reply within ${commandTimeoutMs} ms`),
      );
    } catch (error) {
      throw mapRedisError(error, keys, unavailable, options.keyPrefix);
    }
  }

  return {
    kind: "redis",

    async reserve(entries: ReserveEntry[], clock?: ClockOptions): Promise<ReserveResult> {
      assertReserveEntries(entries, "reserve");
      const nowMs = resolveNowMs(clock, "reserve");
      if (entries.length === 0) return { ok: true, values: [] };
      const keys = entries.map((entry) => entry.key);
      const args = [String(nowMs), ...entries.flatMap(entryArgs)];
      return reserveReply(await run(keys, () => client.countersReserve(keys.length, ...keys, ...args)));
    },

    async add(entries: AddEntry[], clock?: ClockOptions): Promise<number[]> {
      assertAddEntries(entries, "add");
      const nowMs = resolveNowMs(clock, "add");
      if (entries.length === 0) return [];
      const keys = entries.map((entry) => entry.key);
      // reserve without limits: always admitted.
      const args = [String(nowMs), ...entries.flatMap((entry) => entryArgs({ ...entry, limit: null }))];
      const reply = await run(keys, () => client.countersReserve(keys.length, ...keys, ...args));
      return numbers(reply.slice(1));
    },

    async get(keys: string[]): Promise<number[]> {
      assertKeys(keys, "get");
      if (keys.length === 0) return [];
      // Not MGET: it reads a sliding window's hash as missing (0) instead of refusing it.
      const args = [String(Date.now()), ...keys.flatMap((key) => entryArgs({ key }))];
      return numbers(await run(keys, () => client.countersRead(keys.length, ...keys, ...args)));
    },

    async read(entries: ReadEntry[], clock?: ClockOptions): Promise<number[]> {
      assertReadEntries(entries, "read");
      const nowMs = resolveNowMs(clock, "read");
      if (entries.length === 0) return [];
      const keys = entries.map((entry) => entry.key);
      const args = [
        String(nowMs),
        ...entries.flatMap((entry) => entryArgs({ key: entry.key, sliding: entry.sliding })),
      ];
      return numbers(await run(keys, () => client.countersRead(keys.length, ...keys, ...args)));
    },

    async reserveHold(hold: Hold, clock?: ClockOptions): Promise<HoldResult> {
      const nowMs = resolveNowMs(clock, "reserveHold");
      assertHold(hold, nowMs, "reserveHold");
      const keys = [...hold.entries.map((entry) => entry.key), holdRecordKey(hold.id), PENDING_HOLDS_KEY];
      const args = [
        String(nowMs),
        hold.id,
        String(hold.expiresAtMs),
        String(hold.keepMs),
        ...hold.entries.flatMap(entryArgs),
      ];
      const reply = await run(keys, () => client.countersReserveHold(keys.length, ...keys, ...args));
      if (reply[0] === 2) return { ok: true, replayed: true, values: numbers(reply.slice(1)) };
      const result = reserveReply(reply);
      // Spelled per branch so each keeps its own member of the HoldResult union.
      return result.ok ? { ...result, replayed: false } : { ...result, replayed: false };
    },

    async settleHold(
      id: string,
      actual: Record<string, number>,
      clock?: ClockOptions,
    ): Promise<SettleResult> {
      assertKey(id, "settleHold id");
      const pairs = actualEntries(actual, "settleHold");
      const nowMs = resolveNowMs(clock, "settleHold");
      const keys = [holdRecordKey(id), PENDING_HOLDS_KEY];
      const args = [String(nowMs), ...pairs.flatMap(([tag, amount]) => [tag, String(amount)])];
      const reply = await run([], () => client.countersSettleHold(keys.length, ...keys, ...args));
      return reply[0] === 1
        ? { settled: true, values: numbers(reply.slice(1)) }
        : { settled: false, values: [] };
    },

    async expireHolds(nowMs: number, max: number): Promise<string[]> {
      assertExpireArguments(nowMs, max, "expireHolds");
      return run([], () => client.countersExpireHolds(1, PENDING_HOLDS_KEY, String(nowMs), String(max)));
    },

    async hashAddOnce(marker: HashMarker, entries: HashAddEntry[]): Promise<boolean> {
      assertHashAddOnce(marker, entries, "hashAddOnce");
      const keys = [marker.key, ...entries.map((entry) => entry.key)];
      const args = [
        String(Date.now()),
        marker.field,
        String(marker.ttlMs),
        ...entries.flatMap(hashEntryArgs),
      ];
      const reply = await run(keys, () => client.countersHashAddOnce(keys.length, ...keys, ...args));
      return reply === 1;
    },

    async hashGetAll(key: string): Promise<Record<string, number>> {
      assertKey(key, "hashGetAll");
      return hashFromFlat(await run([key], () => client.countersHashGetAll(1, key, String(Date.now()))));
    },

    async setValue(key: string, value: string, ttlMs: number): Promise<void> {
      assertKey(key, "setValue");
      if (typeof value !== "string") throw new TypeError("setValue: value must be a string");
      assertTtlMs(ttlMs, "setValue ttlMs");
      await run([key], () => client.set(key, value, "PX", ttlMs));
    },

    async getValue(key: string): Promise<string | null> {
      assertKey(key, "getValue");
      return run([key], () => client.get(key));
    },

    async ttlMs(key: string): Promise<number | null> {
      assertKey(key, "ttlMs");
      const ttl = await run([key], () => client.pttl(key));
      // -2: no such key, -1: no expiry.
      return ttl < 0 ? null : ttl;
    },

    async delete(keys: string[]): Promise<void> {
      assertKeys(keys, "delete");
      if (keys.length === 0) return;
      await run(keys, () => client.del(...keys));
    },

    async ping(): Promise<void> {
      await run([], () => client.ping());
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (client.status === "end") return;
      try {
        // QUIT lets Redis finish what it already received, within the command deadline.
        if (client.status === "ready")
          await withDeadline(client.quit(), commandTimeoutMs, () => new Error("QUIT unanswered"));
        else client.disconnect();
      } catch {
        client.disconnect();
      }
    },
  };
}
