/**
 * @gw/db: Prisma Client over PostgreSQL or PGlite, committed migrations applied at startup, ids.
 * Services import only from here (never from the generated client folder).
 */
export { createDatabase, type Database, type DatabaseOptions } from "./client.js";
export type {
  AuditEntry,
  Model,
  Project,
  ProjectMember,
  ProjectModel,
  ProjectToken,
  RefreshToken,
  Role,
  UsageRecord,
  User,
} from "./generated/prisma/client.js";
export { Prisma, PrismaClient } from "./generated/prisma/client.js";
export { newId } from "./ids.js";
export { type DbLogger, silentLogger } from "./logger.js";
export { type MigrationFile, readMigrations, resolveMigrationsDir } from "./migrations/files.js";
export {
  MigrationChecksumError,
  type MigrationReport,
  type RunMigrationsOptions,
  runMigrations,
} from "./migrations/runner.js";
export { MIGRATION_LOCK_KEY, type MigrationTarget } from "./migrations/sessions.js";
