import { type DbLogger, silentLogger } from "../logger.js";
import { type MigrationFile, readMigrations, resolveMigrationsDir } from "./files.js";
import { type MigrationSession, type MigrationTarget, openSession } from "./sessions.js";

/** What a migration run did. */
export interface MigrationReport {
  /** Names of the migrations this run applied, in order. */
  applied: string[];
  /** How many on-disk migrations were already recorded before this run. */
  alreadyApplied: number;
}

/** Options for {@link runMigrations}. */
export interface RunMigrationsOptions {
  /** Folder of `<timestamp>_<name>/migration.sql`; default {@link resolveMigrationsDir}(). */
  migrationsDir?: string;
  logger?: DbLogger;
}

/** Thrown when a migration recorded as applied no longer matches its file. */
export class MigrationChecksumError extends Error {
  constructor(
    readonly migrationName: string,
    readonly recordedChecksum: string,
    readonly fileChecksum: string,
  ) {
    super(
      `Migration ${migrationName} was modified after it was applied ` +
        `(recorded sha256 ${recordedChecksum}, file sha256 ${fileChecksum}). ` +
        "Applied migrations must never be edited: restore the file and add a new migration instead.",
    );
    this.name = "MigrationChecksumError";
  }
}

const CREATE_LEDGER_SQL = `CREATE TABLE IF NOT EXISTS _gw_migrations (
  name text PRIMARY KEY,
  checksum text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

/**
 * Applies committed migrations that are not yet recorded in `_gw_migrations`, in name order, each
 * in its own transaction together with its ledger row.
 *
 * The whole run (ledger creation, checksum verification, applying) happens under one lock (a
 * PostgreSQL advisory lock on a dedicated connection; an in-process queue for PGlite), so replicas
 * starting together apply each migration exactly once: the ones that waited find it recorded.
 *
 * @throws MigrationChecksumError if an applied migration's file changed since it was applied.
 */
export async function runMigrations(
  target: MigrationTarget,
  options: RunMigrationsOptions = {},
): Promise<MigrationReport> {
  const logger = options.logger ?? silentLogger;
  // Read files before connecting, so a broken checkout fails without touching the database.
  const migrations = readMigrations(options.migrationsDir ?? resolveMigrationsDir());
  const session = await openSession(target, logger);
  try {
    await session.lock();
    try {
      return await applyPending(session, migrations, logger);
    } finally {
      await session.unlock().catch((err) => logger.warn({ err }, "could not release the migration lock"));
    }
  } finally {
    await session.close().catch((err) => logger.warn({ err }, "could not close the migration connection"));
  }
}

async function applyPending(
  session: MigrationSession,
  migrations: MigrationFile[],
  logger: DbLogger,
): Promise<MigrationReport> {
  await session.query(CREATE_LEDGER_SQL);
  const rows = await session.query("SELECT name, checksum FROM _gw_migrations ORDER BY name");
  const recorded = new Map(rows.map((row) => [String(row.name), String(row.checksum)]));

  // Verify every applied migration before applying anything new: an edited history means the
  // database may not be in the state the pending migrations expect.
  for (const migration of migrations) {
    const recordedChecksum = recorded.get(migration.name);
    if (recordedChecksum !== undefined && recordedChecksum !== migration.checksum) {
      throw new MigrationChecksumError(migration.name, recordedChecksum, migration.checksum);
    }
  }
  const onDisk = new Set(migrations.map((m) => m.name));
  const unknown = [...recorded.keys()].filter((name) => !onDisk.has(name));
  if (unknown.length > 0) {
    // Expected during a rolling deploy: an older build starts after a newer one migrated.
    logger.warn({ migrations: unknown }, "database has migrations this build does not know about");
  }

  const latestRecorded = [...recorded.keys()].sort().at(-1);
  const pending = migrations.filter((m) => !recorded.has(m.name));
  const applied: string[] = [];
  for (const migration of pending) {
    if (latestRecorded !== undefined && migration.name < latestRecorded) {
      logger.warn({ migration: migration.name, latestRecorded }, "applying a migration out of order");
    }
    const startedAt = performance.now();
    try {
      await session.applyInTransaction(migration.sql, migration);
    } catch (err) {
      logger.error({ err, migration: migration.name }, "migration failed; rolled back");
      throw new Error(`Migration ${migration.name} failed: ${(err as Error).message}`, { cause: err });
    }
    applied.push(migration.name);
    logger.info(
      { migration: migration.name, durationMs: Math.round(performance.now() - startedAt) },
      "applied migration",
    );
  }
  return { applied, alreadyApplied: migrations.length - pending.length };
}
