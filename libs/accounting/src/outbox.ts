import type { Bus } from "@gw/bus";
import type { Logger } from "@gw/logger";
import { type OutboxEntry, OutboxLog } from "./outbox-log.js";

/**
 * Every usage record and event ingress produces goes through this outbox. It publishes at once;
 * when the bus is unreachable it keeps the message and retries with backoff. With a `path` it is
 * durable: a write-ahead log replayed on start, so a crash between the response and the bus ack
 * loses nothing (the bus dedupes the replays by message id). It is bounded: when `maxPending`
 * messages wait, `full` turns true and ingress refuses new calls rather than serve calls it cannot
 * account for.
 */
export interface Outbox {
  enqueue(entry: OutboxEntry): void;
  readonly pending: number;
  readonly full: boolean;
  /** Publish what is pending; resolves when nothing is pending or the timeout passed. */
  flush(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export interface OutboxOptions {
  bus: Bus;
  logger: Logger;
  /** Write-ahead log file; absent = memory only. */
  path?: string;
  maxPending?: number;
  /** Publishes in flight at once. */
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
}

export function createOutbox(options: OutboxOptions): Outbox {
  const maxPending = options.maxPending ?? 100_000;
  const concurrency = options.concurrency ?? 256;
  const retryBaseMs = options.retryBaseMs ?? 200;
  const retryMaxMs = options.retryMaxMs ?? 10_000;
  const log = options.path ? new OutboxLog(options.path) : undefined;
  const queue: OutboxEntry[] = log ? log.replay() : [];
  const pendingIds = new Set(queue.map((entry) => entry.id));
  let inFlight = 0;
  let failures = 0;
  let retryTimer: NodeJS.Timeout | undefined;
  let closed = false;
  const idleWaiters: (() => void)[] = [];

  if (queue.length > 0)
    options.logger.warn({ pending: queue.length }, "outbox: replaying unpublished messages");

  function notifyIdle() {
    if (pendingIds.size === 0) {
      log?.compactIfLarge();
      for (const resolve of idleWaiters.splice(0)) resolve();
    }
  }

  function pump(): void {
    if (retryTimer || closed) return;
    while (inFlight < concurrency && queue.length > 0) {
      const entry = queue.shift()!;
      inFlight++;
      options.bus
        .publish(entry.subject, entry.data, {
          msgId: entry.id,
          ...(entry.headers ? { headers: entry.headers } : {}),
        })
        .then(
          () => {
            inFlight--;
            failures = 0;
            pendingIds.delete(entry.id);
            log?.appendAcked(entry.id);
            notifyIdle();
            pump();
          },
          (error: unknown) => {
            inFlight--;
            queue.unshift(entry);
            failures++;
            scheduleRetry(error);
          },
        );
    }
  }

  function scheduleRetry(error: unknown) {
    if (retryTimer || closed) return;
    const delay = Math.min(retryMaxMs, retryBaseMs * 2 ** Math.min(failures - 1, 10));
    if (failures === 1 || failures % 10 === 0) {
      options.logger.warn(
        { err: error, pending: pendingIds.size, retryInMs: delay },
        "outbox: publish failed, retrying",
      );
    }
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      pump();
    }, delay);
    retryTimer.unref();
  }

  pump();

  return {
    enqueue(entry) {
      log?.appendQueued(entry);
      pendingIds.add(entry.id);
      queue.push(entry);
      pump();
    },
    get pending() {
      return pendingIds.size;
    },
    get full() {
      return pendingIds.size >= maxPending;
    },
    async flush(timeoutMs) {
      if (pendingIds.size === 0) return;
      if (retryTimer) {
        clearTimeout(retryTimer);
        retryTimer = undefined;
        pump();
      }
      await Promise.race([
        new Promise<void>((resolve) => idleWaiters.push(resolve)),
        new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
      ]);
      if (pendingIds.size > 0) {
        options.logger.warn(
          { pending: pendingIds.size, durable: Boolean(log) },
          "outbox: messages still pending at flush deadline",
        );
      }
    },
    async close() {
      closed = true;
      if (retryTimer) clearTimeout(retryTimer);
      log?.close();
    },
  };
}
