import { join, resolve } from "node:path";
import { type Bus, createBus, ensureProjectStreams } from "@gw/bus";
import { type CounterStore, createCounterStore } from "@gw/counters";
import { createDatabase, type Database } from "@gw/db";
import type { Logger } from "@gw/logger";
import { loadOrCreateKeyFile, parseSecretKey } from "@gw/security";
import type { StandaloneConfig } from "./config.js";

export interface Infrastructure {
  dataDir: string;
  db: Database;
  bus: Bus;
  counters: CounterStore;
  secretKey: Buffer;
}

/** Real servers where URLs are set, embedded adapters with files in the data directory elsewhere. */
export async function openInfrastructure(config: StandaloneConfig, logger: Logger): Promise<Infrastructure> {
  const dataDir = resolve(config.SERVICE_DATA_DIR);
  const db = await createDatabase(
    config.DATABASE_URL ? { url: config.DATABASE_URL, logger } : { dataDir: join(dataDir, "pglite"), logger },
  );
  const migrations = await db.migrate();
  if (migrations.applied.length > 0) logger.info({ applied: migrations.applied }, "migrations applied");
  const bus = await createBus({
    ...(config.NATS_URL ? { natsUrl: config.NATS_URL, namespace: config.BUS_NAMESPACE } : { dataDir }),
    name: "standalone",
    logger,
  });
  await ensureProjectStreams(bus);
  const counters = createCounterStore({
    ...(config.REDIS_URL ? { redisUrl: config.REDIS_URL } : {}),
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  // A laptop install encrypts upstream keys with a key generated into the data directory (0600).
  const secretKey = config.SERVICE_SECRET_KEY
    ? parseSecretKey(config.SERVICE_SECRET_KEY)
    : loadOrCreateKeyFile(join(dataDir, "secret.key"));
  return { dataDir, db, bus, counters, secretKey };
}
