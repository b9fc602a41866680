import type { Redis } from "ioredis";
import { CounterStoreUnavailableError } from "./counters.js";
import type { CountersLogger } from "./logger.js";
import { notIntegerError, overflowError, wrongKindError } from "./validate.js";

/**
 * Connection plumbing for the Redis store: how long a call may wait for the connection, how Redis
 * failures become `CounterStoreUnavailableError`, and connection logging.
 */

/** The URL as it may appear in errors and logs: the password is replaced, never printed. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "redacted";
    return parsed.toString();
  } catch {
    // An unparsable URL may still embed a secret; say nothing about it.
    return "<unparsable redis url>";
  }
}

/** One pending "next ready or close" per client, shared by all waiters (no listener per call). */
const nextReadiness = new WeakMap<Redis, Promise<void>>();

function nextReady(client: Redis): Promise<void> {
  let pending = nextReadiness.get(client);
  if (!pending) {
    pending = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        client.off("ready", onReady);
        client.off("close", onClose);
        nextReadiness.delete(client);
        if (error) reject(error);
        else resolve();
      };
      const onReady = () => settle();
      const onClose = () => settle(new Error("connection failed"));
      client.on("ready", onReady);
      client.on("close", onClose);
    });
    // Waiters that timed out no longer listen; a later close must not become an unhandled rejection.
    pending.catch(() => {});
    nextReadiness.set(client, pending);
  }
  return pending;
}

/**
 * Resolve once the client can take commands, or throw within `timeoutMs`. With the offline queue
 * disabled, a command sent before "ready" would fail at once; waiting here (bounded) lets the first
 * calls after start-up or a reconnect go through, while a store that is known to be down (between
 * reconnect attempts) fails immediately instead of making every request wait.
 */
export async function waitUntilReady(
  client: Redis,
  timeoutMs: number,
  describeFailure: (reason: string) => CounterStoreUnavailableError,
): Promise<void> {
  const status = client.status;
  if (status === "ready") return;
  if (status === "end") throw describeFailure("connection is closed");
  if (status === "close" || status === "reconnecting") throw describeFailure("disconnected, reconnecting");
  if (status === "wait") client.connect().catch(() => {}); // lazyConnect: errors surface via events
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(describeFailure(`not connected within ${timeoutMs} ms (status ${client.status})`));
    }, timeoutMs);
  });
  try {
    await Promise.race([nextReady(client), timeout]);
  } catch (error) {
    if (error instanceof CounterStoreUnavailableError) throw error;
    throw describeFailure("connection failed");
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Map an error from ioredis. Script errors about the data (a non-integer counter, an overflow, a key
 * of the other kind) are caller bugs and keep their own types; everything else (timeouts, refused or
 * closed connections, OOM, READONLY, LOADING...) means the store cannot answer now. A script error
 * names the entry by index (into `keys` when the caller passed the keys) and by the key it saw,
 * which carries `keyPrefix`.
 */
export function mapRedisError(
  error: unknown,
  keys: readonly string[],
  describeFailure: (reason: string, cause?: unknown) => CounterStoreUnavailableError,
  keyPrefix = "",
): Error {
  if (error instanceof CounterStoreUnavailableError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const scriptError = /^COUNTERS_(NOT_INTEGER|OVERFLOW|WRONG_KIND) (\d+)(?: (.*))?/s.exec(message);
  if (scriptError) {
    const seen = scriptError[3];
    const unprefixed = seen?.startsWith(keyPrefix) ? seen.slice(keyPrefix.length) : seen;
    const key = keys[Number(scriptError[2]) - 1] ?? unprefixed ?? "?";
    if (scriptError[1] === "OVERFLOW") return overflowError(key);
    return scriptError[1] === "WRONG_KIND" ? wrongKindError(key) : notIntegerError(key);
  }
  if (message.startsWith("WRONGTYPE")) {
    return new TypeError(`counter store: a key holds a non-string value (${message})`);
  }
  return describeFailure(message, error);
}

/**
 * A command deadline that survives event-loop stalls. When this process itself was blocked past
 * the deadline (GC, CPU starved by neighbours), Redis's reply may already sit in the socket; Node
 * runs timers before it reads sockets, so a plain timer (ioredis's `commandTimeout`) would refuse a
 * command Redis answered in time, and budgets would fail closed for nothing. Deferring the refusal
 * with `setImmediate` lets the poll phase deliver that reply first. A frozen Redis still fails
 * within one loop turn of the deadline.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (done) return;
          done = true;
          reject(onTimeout());
        }),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (done) return;
        done = true;
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        if (done) return;
        done = true;
        reject(error);
      },
    );
  });
}

/** How often the same connection error is logged again while Redis stays down. */
const ERROR_LOG_INTERVAL_MS = 10_000;

/** What the store remembers about its connection, for error messages. */
export interface ConnectionWatch {
  /** The last connection error since the connection was last ready, if any. */
  lastError(): string | undefined;
}

/**
 * Follow connection events: remember the last error (so "disconnected" errors say why) and log
 * changes, errors throttled (a down Redis is redialled every second) and recovery once.
 */
export function watchConnection(
  client: Redis,
  target: string,
  logger: CountersLogger | undefined,
): ConnectionWatch {
  let lastErrorMessage: string | undefined;
  let lastErrorLoggedAt = 0;
  // ioredis prints unhandled "error" events to stderr; always listen, even without a logger.
  client.on("error", (error: Error) => {
    const now = Date.now();
    const repeated = error.message === lastErrorMessage && now - lastErrorLoggedAt < ERROR_LOG_INTERVAL_MS;
    lastErrorMessage = error.message;
    if (repeated) return;
    lastErrorLoggedAt = now;
    logger?.warn({ target, err: error.message }, "counter store: redis connection error");
  });
  client.on("ready", () => {
    if (lastErrorMessage !== undefined) logger?.info({ target }, "counter store: redis connection restored");
    else logger?.debug({ target }, "counter store: redis connected");
    lastErrorMessage = undefined;
  });
  return { lastError: () => lastErrorMessage };
}
