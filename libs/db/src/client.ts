import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaPGlite } from "pglite-prisma-adapter";
import { PrismaClient } from "./generated/prisma/client.js";
import { type DbLogger, silentLogger } from "./logger.js";
import { type MigrationReport, runMigrations } from "./migrations/runner.js";
import type { MigrationTarget } from "./migrations/sessions.js";

/** Options for {@link createDatabase}. */
export interface DatabaseOptions {
  /** PostgreSQL connection string. When set, PostgreSQL is used and `dataDir` is ignored. */
  url?: string;
  /** PGlite data folder (created if missing). Without `url` and `dataDir`: in-memory PGlite (tests). */
  dataDir?: string;
  /** Maximum connections in the PostgreSQL pool (pg default: 10). Ignored for PGlite. */
  poolMax?: number;
  /** Overrides the migrations folder (default: resolveMigrationsDir()). */
  migrationsDir?: string;
  logger?: DbLogger;
}

/** An open database: Prisma Client plus lifecycle. */
export interface Database {
  kind: "postgres" | "pglite";
  prisma: PrismaClient;
  /**
   * Applies committed migrations not yet applied (safe to call from several replicas at once), then
   * runs one Prisma query so the query path is warm before the service takes traffic.
   */
  migrate(): Promise<MigrationReport>;
  /** Disconnects Prisma and, for PGlite, closes the instance (otherwise the process never exits). */
  close(): Promise<void>;
}

/**
 * Opens the gateway database: PostgreSQL through `@prisma/adapter-pg` when `url` is given,
 * otherwise embedded PGlite (persistent at `dataDir`, or in-memory) through pglite-prisma-adapter.
 * Does not migrate: call `migrate()` at startup.
 */
export async function createDatabase(options: DatabaseOptions = {}): Promise<Database> {
  const logger = options.logger ?? silentLogger;
  const migrationOptions = { migrationsDir: options.migrationsDir, logger };

  if (options.url) {
    const url = options.url;
    const adapter = new PrismaPg({ connectionString: url, max: options.poolMax });
    const prisma = new PrismaClient({ adapter });
    logger.debug({ kind: "postgres", server: describeUrl(url) }, "database opened");
    const target: MigrationTarget = { kind: "postgres", url };
    return {
      kind: "postgres",
      prisma,
      migrate: () => migrateAndWarm(target, prisma, migrationOptions),
      close: once(() => prisma.$disconnect()),
    };
  }

  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const startedAt = performance.now();
  const pglite = await PGlite.create(options.dataDir);
  logger.debug(
    { kind: "pglite", dataDir: options.dataDir ?? "memory", ms: Math.round(performance.now() - startedAt) },
    "database opened",
  );
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(pglite) });
  const target: MigrationTarget = { kind: "pglite", pglite };
  return {
    kind: "pglite",
    prisma,
    migrate: () => migrateAndWarm(target, prisma, migrationOptions),
    close: once(async () => {
      await prisma.$disconnect();
      await pglite.close();
    }),
  };
}

/** host:port/database of a connection string, without credentials, for logs. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host}${parsed.pathname}`;
  } catch {
    return "(unparseable url)";
  }
}

/** Makes close() idempotent: services call it from several shutdown paths. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let result: Promise<void> | undefined;
  return () => {
    result ??= fn();
    return result;
  };
}

/**
 * Migrations, then one model query: Prisma compiles its first query lazily (about 0.3 s idle, several
 * seconds on a starved CPU), which would otherwise land on a service's first request and can blow
 * a hot-path deadline (a budget Reserve refused as "unavailable" right after startup).
 */
async function migrateAndWarm(
  target: Parameters<typeof runMigrations>[0],
  prisma: PrismaClient,
  options: Parameters<typeof runMigrations>[1],
): Promise<MigrationReport> {
  const report = await runMigrations(target, options);
  await prisma.project.findFirst({ select: { id: true } });
  return report;
}
