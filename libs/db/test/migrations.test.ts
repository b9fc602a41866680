/**
 * Migration files and offline authoring (wasm schema engine). No database involved.
 */
import assert from "node:assert/strict";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { authorMigration } from "../src/migrations/author.js";
import { checksumOf, readMigrations, resolveMigrationsDir } from "../src/migrations/files.js";
import { diffSchemas } from "../src/migrations/schema-engine.js";

const schemaPath = fileURLToPath(new URL("../prisma/schema.prisma", import.meta.url));
const migrationsDir = fileURLToPath(new URL("../prisma/migrations", import.meta.url));
const HAND_EDITED_MARKER = "-- hand-edited:";
const scratch = mkdtempSync(join(tmpdir(), "gw-db-author-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("migration files", () => {
  it("resolves the source layout by default and SERVICE_MIGRATIONS_DIR when set", () => {
    assert.equal(resolveMigrationsDir({}), migrationsDir);
    assert.equal(resolveMigrationsDir({ SERVICE_MIGRATIONS_DIR: scratch }), scratch);
    assert.throws(
      () => resolveMigrationsDir({ SERVICE_MIGRATIONS_DIR: join(scratch, "nope") }),
      /does not exist/,
    );
  });

  it("reads migrations in name order with sha256 checksums", () => {
    const migrations = readMigrations(migrationsDir);
    assert.deepEqual(
      migrations.map((m) => m.name),
      [...migrations.map((m) => m.name)].sort(),
    );
    const first = migrations[0]!;
    assert.equal(first.checksum, checksumOf(readFileSync(join(migrationsDir, first.name, "migration.sql"))));
  });

  it("rejects a folder that is not <YYYYMMDDHHMMSS>_<name>", () => {
    const dir = join(scratch, "bad-names");
    mkdirSync(join(dir, "add_column"), { recursive: true });
    assert.throws(() => readMigrations(dir), /does not match/);
  });
});

describe("offline migration authoring", () => {
  it("the committed migrations are exactly what the engine generates from their snapshots", async () => {
    let previous: string | null = null;
    for (const { name, sql } of readMigrations(migrationsDir)) {
      const snapshot = readFileSync(join(migrationsDir, name, "schema.prisma"), "utf8");
      const diff = await diffSchemas(previous, snapshot);
      // Hand-written migrations (--empty) keep the previous snapshot, so their diff is empty;
      // reviewed edits of generated SQL are marked with a `-- hand-edited: <why>` line.
      if (!diff.empty && !sql.includes(HAND_EDITED_MARKER)) {
        assert.equal(sql, diff.sql, `${name}/migration.sql differs from the engine's output`);
      }
      previous = snapshot;
    }
  });

  it("reports no changes and writes nothing when schema.prisma matches the latest snapshot", async () => {
    const dir = join(scratch, "up-to-date");
    cpSync(migrationsDir, dir, { recursive: true });
    const before = readdirSync(dir);
    assert.deepEqual(await authorMigration({ name: "noop", schemaPath, migrationsDir: dir }), {
      status: "no-changes",
    });
    assert.deepEqual(readdirSync(dir), before);
  });

  it("writes the next migration and snapshot for a schema change, then reports no changes", async () => {
    const dir = join(scratch, "changed");
    cpSync(migrationsDir, dir, { recursive: true });
    const changedSchema = join(scratch, "changed.prisma");
    const original = readFileSync(schemaPath, "utf8");
    writeFileSync(
      changedSchema,
      original.replace(
        '  details   Json     @default("{}")',
        '  details   Json     @default("{}")\n  ip        String?',
      ),
    );

    const result = await authorMigration({
      name: "Add audit IP",
      schemaPath: changedSchema,
      migrationsDir: dir,
      now: new Date("2999-01-01T00:00:00Z"),
    });
    assert.equal(result.status, "written");
    if (result.status !== "written") return;
    assert.equal(result.migrationName, "29990101000000_add_audit_ip");
    assert.match(result.sql, /ALTER TABLE "audit_entries" ADD COLUMN\s+"ip" TEXT/);
    assert.equal(
      readFileSync(join(result.directory, "schema.prisma"), "utf8"),
      readFileSync(changedSchema, "utf8"),
    );
    const again = await authorMigration({ name: "again", schemaPath: changedSchema, migrationsDir: dir });
    assert.equal(again.status, "no-changes");
  });

  it("--empty writes a hand-written migration that keeps the previous snapshot", async () => {
    const dir = join(scratch, "empty");
    cpSync(migrationsDir, dir, { recursive: true });
    const latest = readMigrations(dir).at(-1)!.name;
    const result = await authorMigration({
      name: "backfill",
      schemaPath,
      migrationsDir: dir,
      empty: true,
      now: new Date("2999-01-01T00:00:00Z"),
    });
    assert.equal(result.status, "written");
    if (result.status !== "written") return;
    assert.match(result.sql, /^-- Hand-written migration/);
    const snapshotOf = (name: string) => readFileSync(join(dir, name, "schema.prisma"), "utf8");
    assert.equal(snapshotOf(result.migrationName), snapshotOf(latest));
  });

  it("diffs from an empty database when there is no migration yet", async () => {
    const dir = join(scratch, "first");
    const result = await authorMigration({ name: "init", schemaPath, migrationsDir: dir });
    assert.equal(result.status, "written");
    if (result.status === "written") assert.match(result.sql, /CREATE TABLE "projects"/);
    assert.ok(existsSync(dir));
  });
});
