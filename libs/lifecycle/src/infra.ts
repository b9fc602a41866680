/**
 * The infrastructure every distributed service opens the same way (`@gw/lifecycle/infra`, a
 * subpath so each main's static import of `@gw/lifecycle` stays light and the drivers load only
 * with the service body, after telemetry): the URLs it needs checked, PostgreSQL opened and
 * migrated before the service serves, the Redis counter store, the NATS bus with the project
 * streams, the secret key. `registerCloses` adds their shutdown steps; a run.ts calls it after its
 * own steps so connections close last, bus -> counters -> database.
 */
import { type Bus, createBus, ensureProjectStreams } from "@gw/bus";
import { requireDistributedUrls } from "@gw/config";
import { type CounterStore, createCounterStore } from "@gw/counters";
import { createDatabase, type Database } from "@gw/db";
import type { Logger } from "@gw/logger";
import { parseSecretKey } from "@gw/security";
import type { Shutdown } from "./shutdown.js";

/** The part of a service config (InfraEnv, optionally SecretEnv) the infrastructure reads. */
export interface ServiceInfraConfig {
  DATABASE_URL?: string | undefined;
  REDIS_URL?: string | undefined;
  NATS_URL?: string | undefined;
  BUS_NAMESPACE?: string | undefined;
  REDIS_COMMAND_TIMEOUT_MS: number;
  SERVICE_SECRET_KEY?: string | undefined;
}

export interface ServiceInfraOptions {
  /** PostgreSQL (DATABASE_URL), migrated before this returns. */
  database?: true;
  /** The Redis counter store (REDIS_URL). */
  counters?: true;
  /** NATS (NATS_URL), with every project stream ensured. */
  bus?: true;
  /**
   * Require SERVICE_SECRET_KEY and parse it; the text says what for, in the startup error
   * `<name> needs SERVICE_SECRET_KEY (32 bytes, base64): <text>`.
   */
  secretKey?: string;
}

/** What was asked for, non-optional, and nothing else. */
export type ServiceInfra<O extends ServiceInfraOptions> = (O extends { database: true }
  ? { db: Database }
  : unknown) &
  (O extends { counters: true } ? { counters: CounterStore } : unknown) &
  (O extends { bus: true } ? { bus: Bus } : unknown) &
  (O extends { secretKey: string } ? { secretKey: Buffer } : unknown) & {
    /** Registers the closes of what was opened (bus, counters, database): call after the service's own steps. */
    registerCloses(shutdown: Shutdown): void;
  };

/**
 * Checks the URLs (the `requireDistributedUrls` error names every missing one) and the secret key,
 * then opens the database (and migrates), the counter store and the bus (and its streams), in that
 * order.
 */
export async function openServiceInfra<const O extends ServiceInfraOptions>(
  name: string,
  config: ServiceInfraConfig,
  logger: Logger,
  options: O,
): Promise<ServiceInfra<O>> {
  requireDistributedUrls(name, config, [
    ...(options.database ? (["DATABASE_URL"] as const) : []),
    ...(options.counters ? (["REDIS_URL"] as const) : []),
    ...(options.bus ? (["NATS_URL"] as const) : []),
  ]);
  let secretKey: Buffer | undefined;
  if (options.secretKey !== undefined) {
    if (!config.SERVICE_SECRET_KEY)
      throw new Error(`${name} needs SERVICE_SECRET_KEY (32 bytes, base64): ${options.secretKey}`);
    secretKey = parseSecretKey(config.SERVICE_SECRET_KEY);
  }
  let db: Database | undefined;
  if (options.database) {
    db = await createDatabase({ url: config.DATABASE_URL!, logger });
    await db.migrate();
  }
  const counters = options.counters
    ? createCounterStore({
        redisUrl: config.REDIS_URL!,
        commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
        logger,
      })
    : undefined;
  let bus: Bus | undefined;
  if (options.bus) {
    bus = await createBus({ natsUrl: config.NATS_URL!, namespace: config.BUS_NAMESPACE, name, logger });
    await ensureProjectStreams(bus);
  }
  const infra = {
    ...(db ? { db } : {}),
    ...(counters ? { counters } : {}),
    ...(bus ? { bus } : {}),
    ...(secretKey ? { secretKey } : {}),
    registerCloses(shutdown: Shutdown) {
      if (bus) shutdown.register("bus", () => bus.close());
      if (counters) shutdown.register("counters", () => counters.close());
      if (db) shutdown.register("database", () => db.close());
    },
  };
  return infra as ServiceInfra<O>;
}
