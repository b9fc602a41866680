import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** Migration folder names: `<YYYYMMDDHHMMSS>_<name>`; the timestamp makes name order = authoring order. */
export const MIGRATION_NAME_PATTERN = /^\d{14}_[a-z0-9_]+$/;

/** One committed migration, read from disk. */
export interface MigrationFile {
  /** Folder name, e.g. `20250101120000_init`; the primary key in `_gw_migrations`. */
  name: string;
  /** Contents of `migration.sql`. */
  sql: string;
  /** Hex sha256 of the raw `migration.sql` bytes. */
  checksum: string;
}

/**
 * Finds the committed migrations folder.
 *
 * Order: `SERVICE_MIGRATIONS_DIR` (explicit override, e.g. in containers), then the source layout
 * (`libs/db/prisma/migrations`, relative to this file), then the bundled layout (the build copies
 * the folder to `migrations/` next to the bundle, which is what `import.meta.url` points at there).
 */
export function resolveMigrationsDir(env: NodeJS.ProcessEnv = process.env): string {
  const override = env.SERVICE_MIGRATIONS_DIR;
  if (override) {
    if (!existsSync(override)) throw new Error(`SERVICE_MIGRATIONS_DIR does not exist: ${override}`);
    return override;
  }
  const candidates = [
    new URL("../../prisma/migrations", import.meta.url),
    new URL("./migrations", import.meta.url),
  ].map((url) => fileURLToPath(url));
  const found = candidates.find((dir) => existsSync(dir) && statSync(dir).isDirectory());
  if (!found) {
    throw new Error(
      `No migrations folder found (tried ${candidates.join(", ")}); set SERVICE_MIGRATIONS_DIR`,
    );
  }
  return found;
}

/** Hex sha256 of a migration file's bytes: any edit after it was applied is detected. */
export function checksumOf(bytes: Buffer | string): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Reads every `<name>/migration.sql` under `dir`, sorted by name. Folders not matching
 * {@link MIGRATION_NAME_PATTERN} are rejected rather than skipped, so a typo never silently drops
 * a migration.
 */
export function readMigrations(dir: string): MigrationFile[] {
  const entries = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return entries.map((name) => {
    if (!MIGRATION_NAME_PATTERN.test(name)) {
      throw new Error(`Migration folder ${join(dir, name)} does not match <YYYYMMDDHHMMSS>_<name>`);
    }
    const path = join(dir, name, "migration.sql");
    if (!existsSync(path)) throw new Error(`Migration ${name} has no migration.sql (${path})`);
    const bytes = readFileSync(path);
    return { name, sql: bytes.toString("utf8"), checksum: checksumOf(bytes) };
  });
}
