import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MIGRATION_NAME_PATTERN } from "./files.js";
import { diffSchemas } from "./schema-engine.js";

/** File stored next to each migration.sql: the schema the migration leads to. */
export const SCHEMA_SNAPSHOT_FILE = "schema.prisma";

/** Options for {@link authorMigration}. */
export interface AuthorMigrationOptions {
  /** Short snake_case description, e.g. `add_spend_groups`. */
  name: string;
  /** Path of the current `schema.prisma`. */
  schemaPath: string;
  /** Folder holding `<timestamp>_<name>/` migration folders (created if missing). */
  migrationsDir: string;
  /** Write an empty migration.sql for hand-written SQL (data backfills), keeping the previous snapshot. */
  empty?: boolean;
  /** Clock, for tests. */
  now?: Date;
}

/** Outcome of {@link authorMigration}. */
export type AuthorMigrationResult =
  | { status: "no-changes" }
  | { status: "written"; migrationName: string; directory: string; sql: string };

/**
 * Authors the next migration offline: diffs the schema snapshot of the latest migration (or an
 * empty database when there is none) against the current schema, and writes
 * `<timestamp>_<name>/migration.sql` plus a snapshot of the current schema, which the next run
 * diffs from. Writes nothing when the schemas are equivalent.
 */
export async function authorMigration(options: AuthorMigrationOptions): Promise<AuthorMigrationResult> {
  const name = options.name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
  if (!name) throw new Error("Migration name is required, e.g. `npm run migration:new -- add_spend_groups`");

  const currentSchema = readFileSync(options.schemaPath, "utf8");
  const existing = existsSync(options.migrationsDir) ? listMigrationNames(options.migrationsDir) : [];
  const previousSchema = latestSnapshot(options.migrationsDir, existing);

  let sql: string;
  let snapshot: string;
  if (options.empty) {
    if (previousSchema === null) throw new Error("An empty migration needs a previous migration to follow");
    sql = "-- Hand-written migration: add SQL below. It runs in one transaction.\n";
    // The Prisma schema did not change, so the next diff must start from the same place as before.
    snapshot = previousSchema;
  } else {
    const diff = await diffSchemas(previousSchema, currentSchema);
    if (diff.empty) return { status: "no-changes" };
    sql = diff.sql;
    snapshot = currentSchema;
  }

  const migrationName = `${timestampOf(options.now ?? new Date())}_${name}`;
  const latest = existing.at(-1);
  if (latest !== undefined && migrationName <= latest) {
    // Name order is apply order: a new migration must sort after every committed one.
    throw new Error(`New migration ${migrationName} would not sort after ${latest}; check the clock`);
  }
  const directory = join(options.migrationsDir, migrationName);
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "migration.sql"), sql);
  writeFileSync(join(directory, SCHEMA_SNAPSHOT_FILE), snapshot);
  return { status: "written", migrationName, directory, sql };
}

function listMigrationNames(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && MIGRATION_NAME_PATTERN.test(entry.name))
    .map((entry) => entry.name)
    .sort();
}

/** The newest snapshot; `null` when no migration exists yet (diff from an empty database). */
function latestSnapshot(dir: string, names: string[]): string | null {
  for (const name of [...names].reverse()) {
    const path = join(dir, name, SCHEMA_SNAPSHOT_FILE);
    if (existsSync(path)) return readFileSync(path, "utf8");
  }
  if (names.length > 0) {
    throw new Error(`No ${SCHEMA_SNAPSHOT_FILE} snapshot in any migration under ${dir}; cannot diff`);
  }
  return null;
}

/** UTC `YYYYMMDDHHMMSS`, the same format `prisma migrate` uses. */
function timestampOf(date: Date): string {
  return date.toISOString().replace(/[-:T]/g, "").slice(0, 14);
}
