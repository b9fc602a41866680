import { type Bus, decodeJson, Streams, Subjects, type Subscription } from "@gw/bus";
import { ConfigChanged } from "@gw/proto";
import type { ConfigStore } from "./config-store.js";

/** What `watchConfigChanges` logs; a pino logger fits. */
export interface WatchConfigLogger {
  warn(obj: object, msg: string): void;
  debug?(obj: object, msg: string): void;
}

/**
 * Drop `store`'s cache on every `config.changed` (stream `CONFIG`, payload: proto3 JSON of
 * `ConfigChanged`). A broadcast watch (`Bus.watch`), not a durable: every replica of every service
 * must see every change, not one replica of each. Creates the `CONFIG` stream if it does not exist
 * (idempotent, cheap), so it can run before or without `ensureProjectStreams`.
 *
 * Every message invalidates, a malformed one included (logged at warn): invalidating too often
 * costs a reload, too rarely serves stale configuration. Delivery is at most once: a change
 * published while this process was cut off from NATS can be missed (see `Bus.watch`); the store's
 * TTL bounds how long such a miss is visible. Resolves once watching; `stop()` the subscription at
 * shutdown (or close the bus).
 */
export async function watchConfigChanges(
  bus: Bus,
  store: ConfigStore,
  logger?: WatchConfigLogger,
  /** Called after the cache is dropped, with the changed entity (`settings`, `project`, ...). */
  onChange?: (entity: string) => void,
): Promise<Subscription> {
  await bus.ensureStream(Streams.CONFIG);
  return bus.watch({ stream: Streams.CONFIG.name, filterSubject: Subjects.configChanged }, (message) => {
    store.invalidate();
    let change: ConfigChanged;
    try {
      const json = decodeJson<unknown>(message.data);
      if (typeof json !== "object" || json === null || Array.isArray(json)) throw new Error("not an object");
      change = ConfigChanged.fromJSON(json);
    } catch (error) {
      logger?.warn(
        { err: error, seq: message.seq, subject: message.subject },
        "malformed config.changed message; config cache invalidated anyway",
      );
      return;
    }
    logger?.debug?.(
      { entity: change.entity, entityId: change.entityId, action: change.action, changeId: change.id },
      "configuration changed; config cache invalidated",
    );
    onChange?.(change.entity);
  });
}

/**
 * The log level set through `/api/settings`, applied to a running logger (pino's `level` is
 * writable). Called at start and on each settings change; an unset level leaves the environment's.
 */
export async function applyRuntimeLogLevel(store: ConfigStore, logger: { level: string }): Promise<void> {
  const { logLevel } = await store.runtimeSettings();
  if (logLevel && logger.level !== logLevel) logger.level = logLevel;
}

/**
 * What every distributed process that caches configuration does at start: apply the stored log
 * level, then follow `config.changed` (cache dropped on each change, the log level applied again
 * on a settings change). A log level that cannot be read keeps the environment's. Resolves once
 * watching; `stop()` the subscription at shutdown.
 */
export async function followConfigChanges(
  bus: Bus,
  store: ConfigStore,
  logger: WatchConfigLogger & { level: string },
): Promise<Subscription> {
  const applyLogLevel = () => applyRuntimeLogLevel(store, logger).catch(() => {});
  const watch = await watchConfigChanges(bus, store, logger, (entity) => {
    if (entity === "settings") void applyLogLevel();
  });
  await applyLogLevel();
  return watch;
}
