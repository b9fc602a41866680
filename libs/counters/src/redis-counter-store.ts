import { Redis } from "ioredis";
import {
  type AddEntry,
  type CounterStore,
  CounterStoreUnavailableError,
  type ReserveEntry,
  type ReserveResult,
} from "./counters.js";
import type { CountersLogger } from "./logger.js";
import { ADD_LUA, RESERVE_LUA } from "./lua-scripts.js";
import { mapRedisError, redactRedisUrl, waitUntilReady, watchConnection } from "./redis-connection.js";
import {
  assertAddEntries,
  assertKey,
  assertKeys,
  assertReserveEntries,
  assertTtlMs,
  parseCounterValue,
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

/** The scripts registered with `defineCommand` (EVALSHA, falling back to EVAL on NOSCRIPT). */
interface ScriptedRedis extends Redis {
  countersReserve(numKeys: number, ...keysAndArgs: string[]): Promise<number[]>;
  countersAdd(numKeys: number, ...keysAndArgs: string[]): Promise<number[]>;
}

/** Longest pause between reconnect attempts: recover within a second once Redis is back. */
const MAX_RECONNECT_DELAY_MS = 1000;

/**
 * A CounterStore on Redis (standalone; a multi-key script needs all keys on one node, so on Redis
 * Cluster the keys would need a common hash tag). Every call either completes or fails with
 * CounterStoreUnavailableError within about `commandTimeoutMs` (waiting for the connection and the
 * command each get that long): no offline queue, no replay of unanswered commands after a reconnect.
 */
export function createRedisCounterStore(options: RedisCounterStoreOptions): CounterStore {
  const commandTimeoutMs = options.commandTimeoutMs ?? 250;
  const connectTimeoutMs = options.connectTimeoutMs ?? 2000;
  const target = redactRedisUrl(options.url);
  const client = new Redis(options.url, {
    keyPrefix: options.keyPrefix,
    commandTimeout: commandTimeoutMs,
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
  client.defineCommand("countersAdd", { lua: ADD_LUA });
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
      return await command();
    } catch (error) {
      throw mapRedisError(error, keys, unavailable);
    }
  }

  return {
    kind: "redis",

    async reserve(entries: ReserveEntry[]): Promise<ReserveResult> {
      assertReserveEntries(entries, "reserve");
      if (entries.length === 0) return { ok: true, values: [] };
      const keys = entries.map((entry) => entry.key);
      const args = entries.flatMap((entry) => [
        String(entry.amount),
        entry.limit === undefined || entry.limit === null ? "" : String(entry.limit),
        entry.ttlMs === undefined ? "" : String(entry.ttlMs),
      ]);
      const reply = await run(keys, () => client.countersReserve(keys.length, ...keys, ...args));
      if (reply[0] === 1) return { ok: true, values: reply.slice(1) };
      return { ok: false, failedIndex: reply[1]!, values: reply.slice(2) };
    },

    async add(entries: AddEntry[]): Promise<number[]> {
      assertAddEntries(entries, "add");
      if (entries.length === 0) return [];
      const keys = entries.map((entry) => entry.key);
      const args = entries.flatMap((entry) => [
        String(entry.amount),
        entry.ttlMs === undefined ? "" : String(entry.ttlMs),
      ]);
      return run(keys, () => client.countersAdd(keys.length, ...keys, ...args));
    },

    async get(keys: string[]): Promise<number[]> {
      assertKeys(keys, "get");
      if (keys.length === 0) return [];
      const raw = await run(keys, () => client.mget(...keys));
      return raw.map((value, index) => parseCounterValue(value, keys[index]!));
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
        // QUIT lets Redis finish what it already received; it is bounded by commandTimeout.
        if (client.status === "ready") await client.quit();
        else client.disconnect();
      } catch {
        client.disconnect();
      }
    },
  };
}
